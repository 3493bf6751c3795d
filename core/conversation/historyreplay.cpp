#include "conversation/historyreplay.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace keen {

QString serializeJson(const QJsonValue &value)
{
    if (value.isObject())
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    if (value.isArray())
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    // Scalars: wrap in an array and strip the brackets, so strings get JSON quoting and escaping.
    const QByteArray wrapped = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(wrapped.mid(1, wrapped.size() - 2));
}

QString replayResult(const ToolActivity &activity)
{
    if (!activity.retainedOutput.isUndefined() && !activity.retainedOutput.isNull())
        return activity.retainedOutput.isString() ? activity.retainedOutput.toString()
                                                  : serializeJson(activity.retainedOutput);
    if (activity.hasRawOutput)
        return activity.rawOutput.isString() ? activity.rawOutput.toString()
                                             : serializeJson(activity.rawOutput);
    QJsonObject status{{QStringLiteral("status"), activity.status}};
    if (activity.exitCode)
        status.insert(QStringLiteral("exit_code"), *activity.exitCode);
    return serializeJson(status);
}

QList<ReplayStep> replaySteps(const Message &message, int messageIndex)
{
    QList<ReplayStep> steps;
    const QByteArray text = message.content.toUtf8();
    auto isBoundary = [&text](int offset) {
        // A UTF-8 continuation byte is 10xxxxxx: an offset pointing at one splits a character.
        return offset == text.size() || (static_cast<unsigned char>(text.at(offset)) & 0xC0) != 0x80;
    };
    int cursor = 0;
    if (message.turnMemory) {
        const QList<ToolActivity> &activities = message.turnMemory->toolActivity;
        for (int i = 0; i < activities.size(); ++i) {
            const ToolActivity &activity = activities.at(i);
            const int offset = activity.textOffset;
            if (activity.tool.isEmpty() || offset < cursor || offset > text.size() || !isBoundary(offset))
                continue;
            if (offset > cursor)
                steps.append(ReplayStep{ReplayStep::Kind::Text,
                                        QString::fromUtf8(text.mid(cursor, offset - cursor)),
                                        {},
                                        {},
                                        {},
                                        {},
                                        false});
            cursor = offset;
            ReplayStep call;
            call.kind = ReplayStep::Kind::ToolCall;
            call.callId = QStringLiteral("historical_%1_%2").arg(messageIndex).arg(i);
            call.tool = activity.tool;
            call.input = activity.input.isObject() ? activity.input.toObject() : QJsonObject();
            call.result = replayResult(activity);
            call.isError = activity.status != QLatin1String("success");
            call.reasoning = activity.reasoning;
            steps.append(call);
        }
    }
    if (cursor < text.size())
        steps.append(
            ReplayStep{ReplayStep::Kind::Text, QString::fromUtf8(text.mid(cursor)), {}, {}, {}, {}, false});
    return steps;
}

} // namespace keen
