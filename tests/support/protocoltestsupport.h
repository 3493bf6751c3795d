#pragma once

// Helpers for the provider protocol tests in this folder (header-only): feeding a captured response body to a
// protocol's decoder the ways the network may deliver it (all at once, one byte at a time, random splits),
// and a tool that only has a definition.

#include "conversation/streamevent.h"
#include "providers/providerprotocol.h"
#include "tools/tool.h"
#include "tools/toolregistry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <QByteArray>
#include <QList>
#include <QRandomGenerator>
#include <QString>

#include <optional>

namespace keen::test {

enum class Split { Whole, Bytewise, Random };

struct Decoded
{
    std::optional<Result<ModelTurn>> result;
    ProviderError error;
    bool failedEarly = false; // failed() turned true before the body ended
    QList<StreamEvent> events;
    QString streamedText;
    QString streamedReasoning;

    bool ok() const { return result && result->ok(); }
    const ModelTurn &turn() const { return result->value(); }
};

// Random splits cut the body into pieces of 1 to maxPiece bytes.
inline Decoded decodeBody(const ProviderProtocol &protocol, const QByteArray &body, Split split,
                          quint32 seed = 1, quint32 maxPiece = 97)
{
    Decoded out;
    auto sink = [&out](const StreamEvent &event) {
        out.events.append(event);
        if (event.type == StreamEvent::Type::Chunk)
            out.streamedText += event.content;
        else if (event.type == StreamEvent::Type::ReasoningChunk)
            out.streamedReasoning += event.content;
    };
    auto decoder = protocol.createDecoder(sink);
    QRandomGenerator random(seed);
    qsizetype offset = 0;
    while (offset < body.size()) {
        qsizetype size = body.size() - offset;
        if (split == Split::Bytewise)
            size = 1;
        else if (split == Split::Random)
            size = qMin<qsizetype>(size, 1 + random.bounded(maxPiece));
        decoder->feed(body.mid(offset, size));
        offset += size;
        if (decoder->failed()) {
            out.failedEarly = offset < body.size();
            break;
        }
    }
    out.result.emplace(decoder->finish());
    out.error = decoder->error();
    return out;
}

inline QList<std::pair<QString, std::pair<Split, quint32>>> splitModes()
{
    return {{QStringLiteral("whole"), {Split::Whole, 0}},
            {QStringLiteral("bytewise"), {Split::Bytewise, 0}},
            {QStringLiteral("random1"), {Split::Random, 1}},
            {QStringLiteral("random2"), {Split::Random, 2}},
            {QStringLiteral("random3"), {Split::Random, 3}}};
}

// A tool with a definition and a canned result.
class FakeTool final : public Tool
{
public:
    FakeTool(QString name, QString description, QJsonObject schema, QJsonValue output = QJsonValue())
        : m_name(std::move(name))
        , m_description(std::move(description))
        , m_schema(std::move(schema))
        , m_output(std::move(output))
    {}
    QString name() const override { return m_name; }
    QString description() const override { return m_description; }
    QJsonObject inputSchema() const override { return m_schema; }
    ToolResult execute(const QJsonObject &input, ToolContext &) override
    {
        m_inputs.append(input);
        return ToolResult::success(m_output);
    }
    QList<QJsonObject> inputs() const { return m_inputs; }

private:
    QString m_name;
    QString m_description;
    QJsonObject m_schema;
    QJsonValue m_output;
    QList<QJsonObject> m_inputs;
};

inline QJsonObject jsonObject(const QByteArray &bytes)
{
    return QJsonDocument::fromJson(bytes).object();
}

// How many times key occurs anywhere in value.
inline int countKey(const QJsonValue &value, const QString &key)
{
    int count = 0;
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it)
            count += (it.key() == key ? 1 : 0) + countKey(it.value(), key);
    } else if (value.isArray()) {
        const QJsonArray array = value.toArray();
        for (const QJsonValue &item : array)
            count += countKey(item, key);
    }
    return count;
}

// value with every key of that name removed, at any depth.
inline QJsonValue withoutKey(const QJsonValue &value, const QString &key)
{
    if (value.isObject()) {
        QJsonObject object = value.toObject();
        object.remove(key);
        for (auto it = object.begin(); it != object.end(); ++it)
            it.value() = withoutKey(it.value(), key);
        return object;
    }
    if (value.isArray()) {
        QJsonArray array = value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i)
            array[i] = withoutKey(array.at(i), key);
        return array;
    }
    return value;
}

} // namespace keen::test
