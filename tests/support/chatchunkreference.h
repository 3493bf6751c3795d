#pragma once

// What ChatChunkScanner must read from a chunk it accepts: the full parse, as
// ChatCompletionsStreamDecoder::handleChunk reads a chunk's choices. Shared by tst_chatchunkscanner and the
// fuzz target fuzz_chatchunkscanner (header only: the fuzz build links no test support library).

#include "providers/openai/chatchunkscanner.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace keen::test {

inline ChatChunkScanner::Chunk chatChunkReference(const QJsonObject &object)
{
    ChatChunkScanner::Chunk chunk;
    for (const QJsonValue &value : object.value(QLatin1String("choices")).toArray()) {
        const QJsonObject choice = value.toObject();
        if (choice.value(QLatin1String("index")).toInt(0) != 0)
            continue;
        const QJsonObject delta = choice.value(QLatin1String("delta")).toObject();
        for (const QLatin1String key : {QLatin1String("reasoning_content"), QLatin1String("reasoning"),
                                        QLatin1String("reasoning_text")}) {
            chunk.reasoning += delta.value(key).toString();
            if (!chunk.reasoning.isEmpty())
                break;
        }
        chunk.content += delta.value(QLatin1String("content")).toString();
        chunk.refusal += delta.value(QLatin1String("refusal")).toString();
        const QString finish = choice.value(QLatin1String("finish_reason")).toString();
        if (!finish.isEmpty())
            chunk.finishReason = finish;
    }
    return chunk;
}

// Whether what the scanner read from json (which it accepted) is what the full parse reads: json is one
// valid JSON object, without usage, an error or tool calls, and every field reads the same. An empty text
// when they agree, else what differs.
inline QString chatChunkMismatch(const QByteArray &json, const ChatChunkScanner::Chunk &scanned)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return QStringLiteral("accepted what the full parse rejects: ") + error.errorString();
    const QJsonObject object = document.object();
    if (object.value(QLatin1String("usage")).isObject())
        return QStringLiteral("accepted usage");
    const QJsonValue errorValue = object.value(QLatin1String("error"));
    if (!errorValue.isNull() && !errorValue.isUndefined())
        return QStringLiteral("accepted an error");
    for (const QJsonValue &choice : object.value(QLatin1String("choices")).toArray()) {
        const QJsonValue calls =
            choice.toObject().value(QLatin1String("delta")).toObject().value(QLatin1String("tool_calls"));
        if (!calls.isNull() && !calls.isUndefined())
            return QStringLiteral("accepted tool calls");
    }
    const ChatChunkScanner::Chunk reference = chatChunkReference(object);
    if (scanned.reasoning != reference.reasoning)
        return QStringLiteral("reasoning differs: ") + scanned.reasoning + QStringLiteral(" / ") +
               reference.reasoning;
    if (scanned.content != reference.content)
        return QStringLiteral("content differs: ") + scanned.content + QStringLiteral(" / ") +
               reference.content;
    if (scanned.refusal != reference.refusal)
        return QStringLiteral("refusal differs");
    if (scanned.finishReason != reference.finishReason)
        return QStringLiteral("finish reason differs");
    return {};
}

} // namespace keen::test
