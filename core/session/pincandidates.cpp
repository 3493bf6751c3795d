#include "session/pincandidates.h"

#include "conversation/historyreplay.h"
#include "conversation/toolcalltext.h"
#include "conversation/toolresultfacts.h"

#include <QRegularExpression>

namespace keen::PinCandidates {

// The sources are English in every locale: they are stored in the transcript and reach the model.

namespace {

// The replies and results of one transcript (an assistant turn's or a manual compaction's).
void addTranscript(const QList<TranscriptItem> &transcript, PinList &pins)
{
    QString reply; // the text since the last tool call: one row of the chat
    auto endReply = [&] {
        if (reply.trimmed().isEmpty()) {
            reply.clear();
            return;
        }
        pins.append(message(reply, false));
        for (const QString &code : codeBlocks(reply))
            pins.append(codeBlock(code));
        reply.clear();
    };
    for (const TranscriptItem &item : transcript) {
        switch (item.kind) {
        case TranscriptItem::Kind::Text:
            reply += item.content;
            break;
        case TranscriptItem::Kind::ToolEnd: {
            endReply();
            const QJsonObject input = item.input.toObject();
            const QString detail = ToolCallText::detail(item.name, input);
            const ToolResultFacts facts = ToolResultFacts::read(item.name, item.output);
            const QString output = item.name == QLatin1String("bash") ? facts.commandOutput : QString();
            pins.append(toolResult(item.name, detail, output, item.output, item.error));
            break;
        }
        case TranscriptItem::Kind::Bash:
            endReply();
            pins.append(toolResult(QStringLiteral("bash"), item.command, item.bashOutput(), QJsonValue(),
                                   item.error));
            break;
        case TranscriptItem::Kind::ToolStart:
            endReply();
            break;
        case TranscriptItem::Kind::Reasoning:
        case TranscriptItem::Kind::Notice:
        case TranscriptItem::Kind::Diff:
        case TranscriptItem::Kind::Unknown:
            break;
        }
    }
    endReply();
}

} // namespace

Pin message(const QString &text, bool fromUser)
{
    Pin pin;
    pin.kind = Pin::Kind::Message;
    pin.text = text;
    pin.source = fromUser ? QStringLiteral("user message") : QStringLiteral("assistant message");
    return pin;
}

Pin codeBlock(const QString &code)
{
    Pin pin;
    pin.kind = Pin::Kind::CodeBlock;
    pin.text = code;
    pin.source = QStringLiteral("code block of an assistant message");
    return pin;
}

Pin toolResult(const QString &toolName, const QString &detail, const QString &output,
               const QJsonValue &result, const QString &fallback)
{
    Pin pin;
    pin.kind = Pin::Kind::ToolResult;
    pin.source = QString(toolName + QLatin1Char(' ') + detail).trimmed();
    pin.text = output;
    if (pin.text.isEmpty() && result.isString())
        pin.text = result.toString();
    else if (pin.text.isEmpty() && (result.isObject() || result.isArray()))
        pin.text = serializeJson(result);
    if (pin.text.isEmpty())
        pin.text = fallback;
    return pin;
}

QStringList codeBlocks(const QString &markdown)
{
    static const QRegularExpression fence(
        QStringLiteral("(^|\\n)(```|~~~)[^\\n]*\\n(.*?)(\\n\\2[ \\t]*(\\n|$)|$)"),
        QRegularExpression::DotMatchesEverythingOption);
    QStringList blocks;
    auto it = fence.globalMatch(markdown);
    while (it.hasNext())
        blocks << it.next().captured(3);
    return blocks;
}

PinList fromEvents(const QList<SessionEvent> &events)
{
    PinList pins;
    for (const SessionEvent &event : events) {
        switch (event.kind) {
        case SessionEvent::Kind::UserMessage:
            if (!event.content().trimmed().isEmpty())
                pins.append(message(event.content(), true));
            break;
        case SessionEvent::Kind::AssistantTurn:
            if (!event.transcript().isEmpty())
                addTranscript(event.transcript(), pins);
            else
                addTranscript({TranscriptItem::text(event.assistantMessage())}, pins);
            break;
        case SessionEvent::Kind::CompactionApplied:
            if (!event.status().isEmpty()) // a manual summary, shown as a reply; an automatic one never is
                addTranscript(event.transcript(), pins);
            break;
        default:
            break;
        }
    }
    return pins;
}

} // namespace keen::PinCandidates
