// /btw (reference 6.1): what a side question sends. The last ten messages as text, never the prompt the
// running turn answers, no tool activity, then the question.
#include "agent/asidequestion.h"

#include <QTest>

using namespace keen;

class TestAsideQuestion : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void requestHoldsTheLastTenMessagesAsText();
    void aConversationWithoutMessagesSendsTheQuestionAlone();
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

QTEST_GUILESS_MAIN(TestAsideQuestion)
#include "tst_asidequestion.moc"
