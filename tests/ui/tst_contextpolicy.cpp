// Issue 16, "Policy per session", in the window: the Context dialog's compaction controls, the context
// meter's threshold mark that follows them, the chat row and transcript event a change leaves, and a
// session opened again keeping its policy. Offscreen; children found by objectName.
#include "chat/chatmodel.h"
#include "chat/chatpanel.h"
#include "chat/inputeditor.h"
#include "contextdialog.h"
#include "contextmeter.h"
#include "mainwindow.h"
#include "tokenformat.h"

#include "agent/agentsession.h"
#include "session/sessionstore.h"
#include "testwindow.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QPushButton>
#include <QSpinBox>
#include <QTest>

using namespace keen;
using test::ScriptedLlmClient;

class TestContextPolicy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void dialogControlsStartFromThePolicy();
    void okAppliesAndTheMeterMarkFollows();
    void cancelKeepsThePolicy();
    void offHidesTheMarkAndANewSessionStartsFromTheDefaults();
    void openedSessionKeepsItsPolicy();

private:
    ContextDialog *openDialog();
    void click(ContextDialog *dialog, QDialogButtonBox::StandardButton which);
    void sendAndFinish(const QString &text);

    test::TestEnvironment m_env;
    std::unique_ptr<MainWindow> m_window;
    std::shared_ptr<ScriptedLlmClient> m_client;
};

void TestContextPolicy::initTestCase()
{
    test::prepareWindowEnvironment(m_env);
}

void TestContextPolicy::init()
{
    m_client = std::make_shared<ScriptedLlmClient>();
    m_window = test::makeTestWindow(m_env, m_client); // window 100,000: input budget 95,000
}

void TestContextPolicy::cleanup()
{
    QTRY_VERIFY(!m_window->session()->isBusy());
    m_window.reset();
}

ContextDialog *TestContextPolicy::openDialog()
{
    m_window->chatPanel()->showContextDialog();
    ContextDialog *dialog = nullptr;
    const auto dialogs = m_window->findChildren<ContextDialog *>(QStringLiteral("contextDialog"));
    for (ContextDialog *candidate : dialogs) {
        if (candidate->isVisible())
            dialog = candidate;
    }
    return dialog;
}

void TestContextPolicy::click(ContextDialog *dialog, QDialogButtonBox::StandardButton which)
{
    auto *buttons = dialog->findChild<QDialogButtonBox *>(QStringLiteral("contextButtons"));
    QVERIFY(buttons);
    QTest::mouseClick(buttons->button(which), Qt::LeftButton);
    QTRY_VERIFY(!dialog->isVisible());
}

void TestContextPolicy::sendAndFinish(const QString &text)
{
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("Hello.")), ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_window->chatPanel()->input(), text);
    QTest::keyClick(m_window->chatPanel()->input(), Qt::Key_Return);
    QTRY_VERIFY(!m_window->session()->isBusy());
}

// proves S3: the controls show the session's policy, the seed's defaults at first (90%, normal detail).
void TestContextPolicy::dialogControlsStartFromThePolicy()
{
    ContextDialog *dialog = openDialog();
    QVERIFY(dialog);
    auto *automatic = dialog->findChild<QCheckBox *>(QStringLiteral("contextAutoCompact"));
    auto *threshold = dialog->findChild<QSpinBox *>(QStringLiteral("contextThreshold"));
    auto *detail = dialog->findChild<QComboBox *>(QStringLiteral("contextDetail"));
    QVERIFY(automatic && threshold && detail);
    QVERIFY(automatic->isChecked());
    QCOMPARE(threshold->value(), 90);
    QCOMPARE(threshold->minimum(), 50);
    QCOMPARE(threshold->maximum(), 95);
    QVERIFY(threshold->isEnabled());
    QCOMPARE(detail->currentText(), QStringLiteral("Normal"));
    QCOMPARE(detail->count(), 3);
    // Unticking disables the percentage; the dialog's policy says off and keeps the percentage.
    QTest::mouseClick(automatic, Qt::LeftButton);
    QVERIFY(!threshold->isEnabled());
    QVERIFY(!dialog->policy().automatic);
    QCOMPARE(dialog->policy().thresholdPercent, 90);
    click(dialog, QDialogButtonBox::Cancel);
}

// proves S3 moved by the policy: OK applies the threshold and detail; the meter's mark sits at the new
// threshold, its tooltip says so; the first message creates the session, whose transcript gets a
// compaction_policy event before the message, and the chat shows the change.
void TestContextPolicy::okAppliesAndTheMeterMarkFollows()
{
    auto *meter = m_window->findChild<ContextMeter *>(QStringLiteral("contextMeter"));
    QVERIFY(meter);
    QCOMPARE(meter->thresholdFraction(), 0.855); // 90% of 95,000 in a window of 100,000
    ContextDialog *dialog = openDialog();
    QVERIFY(dialog);
    auto *threshold = dialog->findChild<QSpinBox *>(QStringLiteral("contextThreshold"));
    threshold->setFocus();
    threshold->selectAll();
    QTest::keyClicks(threshold, QStringLiteral("60"));
    QTest::keyClick(threshold, Qt::Key_Tab);
    QCOMPARE(threshold->value(), 60);
    auto *detail = dialog->findChild<QComboBox *>(QStringLiteral("contextDetail"));
    detail->setCurrentIndex(detail->findText(QStringLiteral("Brief")));
    click(dialog, QDialogButtonBox::Ok);

    QCOMPARE(m_window->session()->compactionPolicy().thresholdPercent, 60);
    QCOMPARE(m_window->session()->compactionPolicy().detail, CompactionPolicy::Detail::Brief);
    QCOMPARE(meter->thresholdFraction(), 0.57); // 60% of 95,000
    QVERIFY2(meter->toolTip().contains(QStringLiteral("60% of the input budget")),
             qPrintable(meter->toolTip()));
    QVERIFY(meter->showsThresholdMark());

    sendAndFinish(QStringLiteral("hi"));
    const QString row = ChatModel::compactionPolicyText(m_window->session()->compactionPolicy());
    QTRY_VERIFY2(m_window->chatPanel()->model()->plainText().contains(row),
                 qPrintable(m_window->chatPanel()->model()->plainText()));
    auto loaded = m_window->session()->sessionStore().load(m_window->session()->sessionId());
    QVERIFY(loaded);
    QCOMPARE(loaded->events.at(1).kind, SessionEvent::Kind::CompactionPolicy);
    QCOMPARE(loaded->events.at(1).policy()->policy.thresholdPercent, 60);
    QCOMPARE(loaded->events.at(2).kind, SessionEvent::Kind::UserMessage);

    // The dialog opens on the session's policy now.
    dialog = openDialog();
    QCOMPARE(dialog->findChild<QSpinBox *>(QStringLiteral("contextThreshold"))->value(), 60);
    QCOMPARE(dialog->findChild<QComboBox *>(QStringLiteral("contextDetail"))->currentText(),
             QStringLiteral("Brief"));
    click(dialog, QDialogButtonBox::Cancel);
}

// proves S3 (unchanged): Cancel changes nothing: no policy, no mark moved, no event.
void TestContextPolicy::cancelKeepsThePolicy()
{
    sendAndFinish(QStringLiteral("hi"));
    ContextDialog *dialog = openDialog();
    dialog->findChild<QSpinBox *>(QStringLiteral("contextThreshold"))->setValue(70);
    QTest::mouseClick(dialog->findChild<QCheckBox *>(QStringLiteral("contextAutoCompact")), Qt::LeftButton);
    click(dialog, QDialogButtonBox::Cancel);
    QVERIFY(m_window->session()->compactionPolicy().isDefault());
    QCOMPARE(m_window->findChild<ContextMeter *>(QStringLiteral("contextMeter"))->thresholdFraction(), 0.855);
    auto loaded = m_window->session()->sessionStore().load(m_window->session()->sessionId());
    QVERIFY(loaded);
    for (const SessionEvent &event : loaded->events)
        QVERIFY(event.kind != SessionEvent::Kind::CompactionPolicy);
}

// proves S3 in the window: off, the meter has no mark and says automatic compaction is off; New Session
// starts from the seed's defaults.
void TestContextPolicy::offHidesTheMarkAndANewSessionStartsFromTheDefaults()
{
    sendAndFinish(QStringLiteral("hi"));
    ContextDialog *dialog = openDialog();
    QTest::mouseClick(dialog->findChild<QCheckBox *>(QStringLiteral("contextAutoCompact")), Qt::LeftButton);
    click(dialog, QDialogButtonBox::Ok);
    auto *meter = m_window->findChild<ContextMeter *>(QStringLiteral("contextMeter"));
    QVERIFY(!meter->showsThresholdMark());
    QCOMPARE(meter->thresholdFraction(), 0.0);
    QVERIFY2(meter->toolTip().contains(QStringLiteral("Automatic compaction is off")),
             qPrintable(meter->toolTip()));
    QTRY_VERIFY(m_window->chatPanel()->model()->plainText().contains(
        QStringLiteral("Compaction policy: automatic compaction off, normal summaries.")));

    m_window->findChild<QAction *>(QStringLiteral("newSessionAction"))->trigger();
    QVERIFY(m_window->session()->compactionPolicy().isDefault());
    QVERIFY(meter->showsThresholdMark());
    QCOMPARE(meter->thresholdFraction(), 0.855);
}

// proves S3 per session: a saved session opened again (the session browser's path) brings its policy
// back; the meter follows, the chat replays the change as a row.
void TestContextPolicy::openedSessionKeepsItsPolicy()
{
    CompactionPolicy policy;
    policy.thresholdPercent = 75;
    policy.detail = CompactionPolicy::Detail::Detailed;
    m_window->session()->setCompactionPolicy(policy);
    sendAndFinish(QStringLiteral("hi"));
    const QString id = m_window->session()->sessionId();
    m_window->findChild<QAction *>(QStringLiteral("newSessionAction"))->trigger();
    auto *meter = m_window->findChild<ContextMeter *>(QStringLiteral("contextMeter"));
    QCOMPARE(meter->thresholdFraction(), 0.855);

    m_window->session()->openSessionAsync(id);
    QTRY_COMPARE(m_window->session()->sessionId(), id);
    QTRY_COMPARE(m_window->session()->compactionPolicy(), policy);
    QCOMPARE(meter->thresholdFraction(), TokenFormat::autoCompactionThreshold(100000, policy) / 100000.0);
    QCOMPARE(meter->thresholdFraction(), 0.7125);
    QTRY_VERIFY(
        m_window->chatPanel()->model()->plainText().contains(ChatModel::compactionPolicyText(policy)));
    ContextDialog *dialog = openDialog();
    QCOMPARE(dialog->findChild<QSpinBox *>(QStringLiteral("contextThreshold"))->value(), 75);
    QCOMPARE(dialog->findChild<QComboBox *>(QStringLiteral("contextDetail"))->currentText(),
             QStringLiteral("Detailed"));
    click(dialog, QDialogButtonBox::Cancel);
}

QTEST_MAIN(TestContextPolicy)
#include "tst_contextpolicy.moc"
