// The rows automatic compaction leaves in the chat, with the real tool loop (issue 16, seed S53): the chat
// panel and AgentSession with the real OpenAI-compatible client against the loopback fake provider, a
// 40,000-token context window and a turn whose tool loop reads eight 20 KB files, as tried by hand with
// `--context-window 40000`. Each applied automatic compaction shows its row, `✓ Context compacted
// automatically.`, whose context menu has Undo Compaction, live and when the session is opened again.
#include "chat/chatmodel.h"
#include "chat/chatpanel.h"
#include "chat/chatview.h"

#include "agent/agentsession.h"
#include "fakeproviderserver.h"
#include "loop/compactionprompts.h"
#include "loop/toolloopclient.h"
#include "providerscript.h"
#include "session/sessionstore.h"
#include "testenvironment.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QTest>

using namespace keen;
using test::FakeProviderServer;
namespace ProviderScript = test::ProviderScript;

class TestCompactionRows : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void eachAutomaticCompactionOfAToolLoopShowsItsRowWithUndo();
};

namespace {

const QString kProvider = QStringLiteral("openai-compatible");
constexpr int Files = 8;

// About 20 KB of ordinary text.
QByteArray fileText(int file)
{
    QByteArray text;
    for (int line = 1; text.size() < 20 * 1024; ++line)
        text += QStringLiteral("file %1 line %2: the quick brown fox jumps over the lazy dog\n")
                    .arg(file)
                    .arg(line)
                    .toUtf8();
    return text;
}

QStringList rowTexts(const ChatModel *model)
{
    QStringList texts;
    for (int row = 0; row < model->rowCount(); ++row)
        texts.append(model->item(row).plainText().left(100));
    return texts;
}

// The rows that say an automatic compaction applied, each with the seq it undoes.
QList<std::pair<int, quint64>> automaticRows(const ChatModel *model)
{
    QList<std::pair<int, quint64>> rows;
    for (int row = 0; row < model->rowCount(); ++row) {
        // With how it fit when its request was rebuilt ("✓ Context compacted automatically: rebuilt as ...").
        const QString &text = model->item(row).text;
        if (text == ChatModel::compactionRowText(true, QString()) ||
            text.startsWith(ChatModel::compactionRowText(true, QStringLiteral("%1")).arg(QString())))
            rows.append({row, model->item(row).compactionSeq});
    }
    return rows;
}

} // namespace

// proves S53 (`Context compacted automatically` shown on apply) with several compactions in one tool loop.
void TestCompactionRows::eachAutomaticCompactionOfAToolLoopShowsItsRowWithUndo()
{
    test::TestEnvironment env;
    const QString workspace = env.path(QStringLiteral("work"));
    QVERIFY(QDir().mkpath(workspace));
    for (int file = 1; file <= Files; ++file) {
        QFile out(workspace + QStringLiteral("/part%1.txt").arg(file));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(fileText(file));
    }

    // The model reads part1.txt to part8.txt, one call per request, then answers; a compaction request
    // (the automatic prompt last) gets a summary.
    FakeProviderServer server;
    QVERIFY(server.isListening());
    int reads = 0;
    int summaries = 0;
    connect(&server, &FakeProviderServer::requestReceived, &server, [&](int index) {
        const QJsonObject body = server.requests().at(index).json.object();
        if (ProviderScript::finalUserText(kProvider, body).startsWith(CompactionPrompts::automaticPrompt())) {
            ++summaries;
            server.enqueue(ProviderScript::text(
                kProvider,
                QStringLiteral("## Goal\nRead the parts.\n\n## Accomplished\nSummary %1.").arg(summaries)));
        } else if (reads < Files) {
            ++reads;
            server.enqueue(ProviderScript::toolCall(
                kProvider, QStringLiteral("call_%1").arg(reads), QStringLiteral("read_file"),
                QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("path"),
                                                             QStringLiteral("part%1.txt").arg(reads)}})
                                      .toJson(QJsonDocument::Compact))));
        } else {
            server.enqueue(ProviderScript::text(kProvider, QStringLiteral("Read all eight parts.")));
        }
    });

    AgentSession session;
    ClientConfig config;
    config.providerId = kProvider;
    config.model = QStringLiteral("test-model");
    config.contextWindow = 40000;
    session.setWorkspace(workspace);
    session.setSessionStore(std::make_shared<SessionStore>(env.path(QStringLiteral("sessions"))));
    session.setClientConfig(config);
    session.setClientFactory([&server](const ClientConfig &clientConfig) {
        return Result<std::shared_ptr<LlmClient>>(std::shared_ptr<LlmClient>(std::make_shared<ToolLoopClient>(
            ProviderScript::makeProtocol(kProvider, server.baseUrl(), clientConfig.contextWindow))));
    });

    ChatPanel panel(&session);
    panel.resize(900, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.submitInput(QStringLiteral("Read part1.txt to part8.txt, one after the other."));
    QVERIFY(FakeProviderServer::spinUntil([&] { return !session.isBusy(); }, 60000));
    ChatModel *model = panel.model();
    QVERIFY2(model->plainText().contains(QStringLiteral("Read all eight parts.")),
             qPrintable(rowTexts(model).join(QLatin1Char('\n'))));

    auto loaded = session.sessionStore().load(session.sessionId());
    QVERIFY(loaded);
    QList<quint64> applied;
    QStringList how; // each compaction's strategy as its event records it
    for (const SessionEvent &event : std::as_const(loaded->events)) {
        if (event.kind == SessionEvent::Kind::CompactionApplied) {
            applied.append(event.seq);
            how.append(event.compaction()->strategy.describe());
        }
    }
    QVERIFY2(applied.size() >= 2, qPrintable(QString::number(applied.size())));
    QCOMPARE(summaries, applied.size());

    // Live: one row per applied compaction, after its checkpoint, each undoing its own compaction_applied;
    // only the latest can be undone now, the earlier row says so.
    const QString shown = rowTexts(model).join(QLatin1Char('\n'));
    QList<std::pair<int, quint64>> rows = automaticRows(model);
    QCOMPARE(rows.size(), applied.size());
    ChatView *view = panel.view();
    for (qsizetype i = 0; i < rows.size(); ++i) {
        const auto [row, seq] = rows.at(i);
        QCOMPARE(seq, applied.at(i));
        // Audit 2026-12-06: a request rebuilt as one part without the tool definitions says so.
        QCOMPARE(model->item(row).text, ChatModel::compactionRowText(true, how.at(i)));
        QVERIFY2(model->item(row - 1).kind == ChatItem::Kind::Tool, qPrintable(shown));
        const QModelIndex index = model->index(row);
        view->scrollTo(index);
        const std::unique_ptr<QMenu> menu = view->contextMenuFor(view->visualRect(index).center());
        QAction *undo = menu->findChild<QAction *>(QStringLiteral("undoCompactionRowAction"));
        QVERIFY2(undo, qPrintable(shown));
        QCOMPARE(undo->isEnabled(), seq == applied.constLast());
    }

    // Opened again: the same rows, with the same compactions to undo.
    ChatModel replayed;
    replayed.replay(loaded->events);
    QCOMPARE(automaticRows(&replayed), rows);
    const QString id = session.sessionId();
    session.newSession();
    QVERIFY(session.openSession(id));
    QVERIFY(FakeProviderServer::spinUntil([&] { return model->rowCount() == replayed.rowCount(); }, 20000));
    QCOMPARE(automaticRows(model), rows);
    const QModelIndex last = model->index(rows.constLast().first);
    view->scrollTo(last);
    const std::unique_ptr<QMenu> menu = view->contextMenuFor(view->visualRect(last).center());
    QAction *undo = menu->findChild<QAction *>(QStringLiteral("undoCompactionRowAction"));
    QVERIFY(undo);
    QVERIFY(undo->isEnabled());
}

QTEST_MAIN(TestCompactionRows)
#include "tst_compactionrows.moc"
