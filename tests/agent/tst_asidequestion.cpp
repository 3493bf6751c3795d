// /btw (reference 6.1): what a side question sends. The last ten messages as text, never the prompt the
// running turn answers, no tool activity, then the question. /adversary: what a review sends.
#include "agent/asidequestion.h"
#include "loop/contextbudget.h"

#include <QJsonObject>
#include <QRegularExpression>

#include <QTest>

using namespace keen;

class TestAsideQuestion : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void requestHoldsTheLastTenMessagesAsText();
    void aConversationWithoutMessagesSendsTheQuestionAlone();
    void reviewSendsTheConversationAsTextWithItsToolCalls();
    void reviewOfALongConversationKeepsTheNewestWithinABudget();
};

void TestAsideQuestion::requestHoldsTheLastTenMessagesAsText()
{
    MessageList history{Message::system(QStringLiteral("main system prompt"))};
    for (int i = 1; i <= 8; ++i) {
        history.append(Message::user(QStringLiteral("question %1").arg(i)));
        TurnMemory memory;
        ToolActivity read;
        read.tool = QStringLiteral("read_file");
        read.status = QStringLiteral("success");
        memory.toolActivity.append(read);
        history.append(Message::assistant(QStringLiteral("answer %1").arg(i), memory));
    }
    history.append(Message::assistant(QString(), TurnMemory{})); // tools only, no text: nothing to read
    history.append(Message::user(QStringLiteral("the prompt being answered now")));

    const MessageList request =
        AsideQuestion::request(history, QStringLiteral("what is 2+2?"), QStringLiteral("/tmp/project"));
    QCOMPARE(request.size(), 1 + AsideQuestion::ContextMessages + 1);
    QCOMPARE(request.constFirst().role, Message::Role::System);
    QCOMPARE(request.constFirst().content, AsideQuestion::systemPrompt(QStringLiteral("/tmp/project")));
    QVERIFY(request.constFirst().content.endsWith(QStringLiteral("Working directory: /tmp/project")));
    // questions 4..8 and their answers: the last ten, oldest first, tool activity left out
    QCOMPARE(request.at(1), Message::user(QStringLiteral("question 4")));
    QCOMPARE(request.at(2), Message::assistant(QStringLiteral("answer 4")));
    QCOMPARE(request.at(10), Message::assistant(QStringLiteral("answer 8")));
    for (const Message &message : request)
        QVERIFY(!message.turnMemory.has_value());
    QCOMPARE(request.constLast(), Message::user(QStringLiteral("what is 2+2?")));
    for (const Message &message : request)
        QVERIFY(!message.content.contains(QStringLiteral("prompt being answered")) &&
                message.content != QStringLiteral("main system prompt"));
}

void TestAsideQuestion::aConversationWithoutMessagesSendsTheQuestionAlone()
{
    const MessageList request = AsideQuestion::request({}, QStringLiteral("hello?"), QStringLiteral("/w"));
    QCOMPARE(request.size(), 2);
    QCOMPARE(request.at(1), Message::user(QStringLiteral("hello?")));
}

void TestAsideQuestion::reviewSendsTheConversationAsTextWithItsToolCalls()
{
    TurnMemory memory;
    ToolActivity edit;
    edit.tool = QStringLiteral("edit_file");
    edit.status = QStringLiteral("error");
    edit.input = QJsonObject{{QStringLiteral("path"), QStringLiteral("a.cpp")},
                             {QStringLiteral("content"), QString(2000, QLatin1Char('x'))}};
    memory.toolActivity.append(edit);
    const MessageList history{Message::system(QStringLiteral("main system prompt")),
                              Message::user(QStringLiteral("fix a.cpp")),
                              Message::assistant(QStringLiteral("Fixed it."), memory)};
    const MessageList request =
        AsideQuestion::reviewRequest(history, QString(), QStringLiteral("/tmp/project"), 100000);
    QCOMPARE(request.size(), 2);
    QCOMPARE(request.at(0),
             Message::system(AsideQuestion::reviewSystemPrompt(QStringLiteral("/tmp/project"))));
    QVERIFY(request.at(0).content.endsWith(QStringLiteral("Working directory: /tmp/project")));
    const QString text = request.at(1).content;
    QVERIFY2(
        text.startsWith(QStringLiteral("The conversation to review:\n\n[user]: fix a.cpp\n\n[main agent]: "
                                       "Fixed it.\n[main agent used edit_file {")),
        qPrintable(text));
    // A tool's input is cut (a whole file written is not the point of a review); its outcome stays.
    QVERIFY(text.contains(QStringLiteral("…: error]")));
    QVERIFY(text.size() < 1000);
    QVERIFY(text.endsWith(QStringLiteral("\n\n---\n\nReview this conversation.")));
    QVERIFY(!text.contains(QStringLiteral("main system prompt")));
    QCOMPARE(AsideQuestion::reviewToolNames(),
             (QStringList{QStringLiteral("glob"), QStringLiteral("grep"), QStringLiteral("read_file")}));
}

void TestAsideQuestion::reviewOfALongConversationKeepsTheNewestWithinABudget()
{
    // 2,000 turns of about 3,000 characters: far more than a third of a 30,000-token budget.
    MessageList history;
    for (int i = 0; i < 1000; ++i) {
        history.append(
            Message::user(QStringLiteral("question %1 ").arg(i) + QString(3000, QLatin1Char('q'))));
        history.append(
            Message::assistant(QStringLiteral("answer %1 ").arg(i) + QString(3000, QLatin1Char('a'))));
    }
    const qint64 budget = 30000;
    const QString text =
        AsideQuestion::reviewRequest(history, QStringLiteral("the last answer"), QStringLiteral("/w"), budget)
            .at(1)
            .content;
    QVERIFY(ContextBudget::estimateTokens(ContextBudget::utf8Bytes(text)) <= budget / 3 + 100);
    QVERIFY(text.contains(QStringLiteral("[main agent]: answer 999 ")));
    QVERIFY(!text.contains(QStringLiteral("question 990 ")));
    const QRegularExpression leftOut(QStringLiteral("\\((\\d+) earlier messages are left out\\.\\)"));
    const QRegularExpressionMatch match = leftOut.match(text);
    QVERIFY2(match.hasMatch(), qPrintable(text.left(200)));
    const int kept =
        int(text.count(QStringLiteral("[user]: ")) + text.count(QStringLiteral("[main agent]: ")));
    QCOMPARE(match.captured(1).toInt() + kept, 2000);
    QVERIFY(text.endsWith(QStringLiteral("---\n\nthe last answer")));
}

QTEST_GUILESS_MAIN(TestAsideQuestion)
#include "tst_asidequestion.moc"
