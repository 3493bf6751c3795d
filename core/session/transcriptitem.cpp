#include "session/transcriptitem.h"

namespace keen {

namespace {

constexpr QLatin1StringView kKind("kind");
constexpr QLatin1StringView kContent("content");
constexpr QLatin1StringView kText("text");
constexpr QLatin1StringView kReasoning("reasoning");
constexpr QLatin1StringView kNotice("notice");
constexpr QLatin1StringView kToolStart("tool_start");
constexpr QLatin1StringView kToolEnd("tool_end");
constexpr QLatin1StringView kBash("bash");
constexpr QLatin1StringView kDiff("diff");
constexpr QLatin1StringView kName("name");
constexpr QLatin1StringView kInput("input");
constexpr QLatin1StringView kOutput("output");
constexpr QLatin1StringView kError("error");
constexpr QLatin1StringView kDuration("duration_ns");
constexpr QLatin1StringView kCommand("command");
constexpr QLatin1StringView kSummary("summary");
constexpr QLatin1StringView kLines("lines");
constexpr QLatin1StringView kPermission("permission");

QLatin1StringView payloadKey(TranscriptItem::Kind kind)
{
    switch (kind) {
    case TranscriptItem::Kind::ToolStart:
        return kToolStart;
    case TranscriptItem::Kind::ToolEnd:
        return kToolEnd;
    case TranscriptItem::Kind::Bash:
        return kBash;
    case TranscriptItem::Kind::Diff:
        return kDiff;
    case TranscriptItem::Kind::Text:
    case TranscriptItem::Kind::Reasoning:
    case TranscriptItem::Kind::Notice:
    case TranscriptItem::Kind::Unknown:
        break;
    }
    return {};
}

std::optional<TranscriptItem::Kind> kindFromName(const QJsonValue &name)
{
    const QString text = name.toString();
    if (text == kText)
        return TranscriptItem::Kind::Text;
    if (text == kReasoning)
        return TranscriptItem::Kind::Reasoning;
    if (text == kNotice)
        return TranscriptItem::Kind::Notice;
    if (text == kToolStart)
        return TranscriptItem::Kind::ToolStart;
    if (text == kToolEnd)
        return TranscriptItem::Kind::ToolEnd;
    if (text == kBash)
        return TranscriptItem::Kind::Bash;
    if (text == kDiff)
        return TranscriptItem::Kind::Diff;
    return std::nullopt;
}

void insertIfDefined(QJsonObject &object, QLatin1StringView key, const QJsonValue &value)
{
    if (!value.isUndefined())
        object.insert(key, value);
}

QJsonObject payloadJson(const TranscriptItem &item)
{
    QJsonObject payload;
    switch (item.kind) {
    case TranscriptItem::Kind::ToolStart:
        payload.insert(kName, item.name);
        insertIfDefined(payload, kInput, item.input);
        if (item.permission)
            payload.insert(kPermission, item.permission->toJson());
        break;
    case TranscriptItem::Kind::ToolEnd:
        payload.insert(kName, item.name);
        insertIfDefined(payload, kInput, item.input);
        insertIfDefined(payload, kOutput, item.output);
        JsonFields::insertIfNotEmpty(payload, kError, item.error);
        if (item.durationNs)
            payload.insert(kDuration, *item.durationNs);
        if (item.permission)
            payload.insert(kPermission, item.permission->toJson());
        break;
    case TranscriptItem::Kind::Bash:
        payload.insert(kCommand, item.command);
        JsonFields::insertIfNotEmpty(payload, kSummary, item.summary);
        insertIfDefined(payload, kOutput, item.output);
        JsonFields::insertIfNotEmpty(payload, kError, item.error);
        if (item.durationNs)
            payload.insert(kDuration, *item.durationNs);
        break;
    case TranscriptItem::Kind::Diff: {
        QJsonArray lines;
        for (const DiffLine &line : item.diff)
            lines.append(line.toJson());
        payload.insert(kLines, lines);
        break;
    }
    case TranscriptItem::Kind::Text:
    case TranscriptItem::Kind::Reasoning:
    case TranscriptItem::Kind::Notice:
    case TranscriptItem::Kind::Unknown:
        break;
    }
    item.payloadExtras.applyTo(payload);
    return payload;
}

void readPayload(TranscriptItem &item, const QJsonObject &payload)
{
    JsonFields &extras = item.payloadExtras;
    switch (item.kind) {
    case TranscriptItem::Kind::ToolStart:
        item.name = extras.readString(payload, kName, JsonFields::Write::Always);
        item.input = JsonFields::readValue(payload, kInput);
        item.permission = extras.readObject<AnsweredPermission>(payload, kPermission);
        extras.keepUnknown(payload, {kName, kInput, kPermission});
        break;
    case TranscriptItem::Kind::ToolEnd:
        item.name = extras.readString(payload, kName, JsonFields::Write::Always);
        item.input = JsonFields::readValue(payload, kInput);
        item.output = JsonFields::readValue(payload, kOutput);
        item.error = extras.readString(payload, kError, JsonFields::Write::OmitEmpty);
        item.durationNs = extras.readInteger(payload, kDuration);
        item.permission = extras.readObject<AnsweredPermission>(payload, kPermission);
        extras.keepUnknown(payload, {kName, kInput, kOutput, kError, kDuration, kPermission});
        break;
    case TranscriptItem::Kind::Bash:
        item.command = extras.readString(payload, kCommand, JsonFields::Write::Always);
        item.summary = extras.readString(payload, kSummary, JsonFields::Write::OmitEmpty);
        item.output = JsonFields::readValue(payload, kOutput);
        item.error = extras.readString(payload, kError, JsonFields::Write::OmitEmpty);
        item.durationNs = extras.readInteger(payload, kDuration);
        extras.keepUnknown(payload, {kCommand, kSummary, kOutput, kError, kDuration});
        break;
    case TranscriptItem::Kind::Diff: {
        const QJsonValue linesValue = payload.value(kLines);
        const QJsonArray lines = linesValue.toArray();
        bool exact = linesValue.isArray();
        item.diff.reserve(lines.size());
        for (const QJsonValue &value : lines) {
            const DiffLine line = DiffLine::fromJson(value.toObject());
            exact = exact && value.isObject() && line.toJson() == value.toObject();
            item.diff.append(line);
        }
        // Lines this app cannot represent exactly are written back as they came.
        if (!exact) {
            if (linesValue.isUndefined())
                extras.keepAbsent(kLines);
            else
                extras.keep(kLines, linesValue);
        }
        extras.keepUnknown(payload, {kLines});
        break;
    }
    case TranscriptItem::Kind::Text:
    case TranscriptItem::Kind::Reasoning:
    case TranscriptItem::Kind::Notice:
    case TranscriptItem::Kind::Unknown:
        break;
    }
}

} // namespace

TranscriptItem TranscriptItem::text(const QString &text)
{
    TranscriptItem item;
    item.kind = Kind::Text;
    item.content = text;
    return item;
}

TranscriptItem TranscriptItem::reasoning(const QString &text)
{
    TranscriptItem item;
    item.kind = Kind::Reasoning;
    item.content = text;
    return item;
}

TranscriptItem TranscriptItem::notice(const QString &text)
{
    TranscriptItem item;
    item.kind = Kind::Notice;
    item.content = text;
    return item;
}

TranscriptItem TranscriptItem::toolStart(const QString &name, const QJsonValue &input)
{
    TranscriptItem item;
    item.kind = Kind::ToolStart;
    item.name = name;
    item.input = input;
    return item;
}

TranscriptItem TranscriptItem::toolEnd(const QString &name, const QJsonValue &input, const QJsonValue &output,
                                       const QString &error, qint64 durationNs)
{
    TranscriptItem item;
    item.kind = Kind::ToolEnd;
    item.name = name;
    item.input = input;
    item.output = output;
    item.error = error;
    item.durationNs = durationNs;
    return item;
}

TranscriptItem TranscriptItem::diffOf(const QList<DiffLine> &lines)
{
    TranscriptItem item;
    item.kind = Kind::Diff;
    item.diff = lines;
    return item;
}

QJsonObject TranscriptItem::toJson() const
{
    QJsonObject object;
    switch (kind) {
    case Kind::Text:
        object.insert(kKind, kText);
        JsonFields::insertIfNotEmpty(object, kContent, content);
        break;
    case Kind::Reasoning:
        object.insert(kKind, kReasoning);
        JsonFields::insertIfNotEmpty(object, kContent, content);
        break;
    case Kind::Notice:
        object.insert(kKind, kNotice);
        JsonFields::insertIfNotEmpty(object, kContent, content);
        break;
    case Kind::ToolStart:
    case Kind::ToolEnd:
    case Kind::Bash:
    case Kind::Diff:
        object.insert(kKind, payloadKey(kind));
        object.insert(payloadKey(kind), payloadJson(*this));
        break;
    case Kind::Unknown:
        break;
    }
    extras.applyTo(object);
    return object;
}

TranscriptItem TranscriptItem::fromJson(const QJsonObject &object)
{
    TranscriptItem item;
    const auto kind = kindFromName(object.value(kKind));
    if (!kind) {
        item.kind = Kind::Unknown;
        item.extras.keepUnknown(object, {});
        return item;
    }
    item.kind = *kind;
    if (item.kind == Kind::Text || item.kind == Kind::Reasoning || item.kind == Kind::Notice) {
        item.content = item.extras.readString(object, kContent, JsonFields::Write::OmitEmpty);
        item.extras.keepUnknown(object, {kKind, kContent});
        return item;
    }
    const QLatin1StringView key = payloadKey(item.kind);
    const QJsonValue payload = object.value(key);
    if (payload.isObject()) {
        readPayload(item, payload.toObject());
    } else {
        // A missing or malformed payload is kept as it came; the typed fields stay empty.
        if (payload.isUndefined())
            item.extras.keepAbsent(key);
        else
            item.extras.keep(key, payload);
    }
    item.extras.keepUnknown(object, {kKind, key});
    return item;
}

} // namespace keen
