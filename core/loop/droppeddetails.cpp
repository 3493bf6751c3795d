#include "loop/droppeddetails.h"

#include "conversation/historyreplay.h"

#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace keen::DroppedDetails {

namespace {

// One text of the compacted range; toolJson: a tool's input or output as JSON, whose keys are the tool's.
struct Source
{
    QString text;
    bool toolJson = false;
};

// Every text of the compacted range: messages, tool inputs and outputs (retained or raw).
QList<Source> texts(const MessageList &messages)
{
    QList<Source> result;
    for (int i = 0; i < messages.size(); ++i) {
        const Message &message = messages.at(i);
        if (message.role == Message::Role::System)
            continue;
        if (message.role == Message::Role::User) {
            result.append({message.content, false});
            continue;
        }
        const QList<ReplayStep> steps = replaySteps(message, i);
        for (const ReplayStep &step : steps) {
            if (step.kind == ReplayStep::Kind::Text) {
                result.append({step.text, false});
            } else {
                result.append({serializeJson(step.input), true});
                result.append({step.result, true});
            }
        }
    }
    return result;
}

// Where a text holds framing rather than content, as [start, end) spans in order: the tags of Keen's own
// compaction replacement (an earlier summary is part of the range), and in tool JSON the keys and the
// line:hash| prefixes of read_file. A hit inside one is no detail of the conversation (issue 16).
QList<std::pair<qsizetype, qsizetype>> framingSpans(const Source &source)
{
    static const QRegularExpression markup(
        QStringLiteral(R"(</?(?:compacted_context|last_user_message|pinned_context)>|</?pin\b[^>\n]*>)"));
    static const QRegularExpression toolFraming(
        QStringLiteral(R"("[A-Za-z_]\w*"(?=\s*:)|(?:^|(?<=":"))\d+:[0-9a-fA-F]{3}\|)"),
        QRegularExpression::MultilineOption);
    QList<std::pair<qsizetype, qsizetype>> spans;
    for (const QRegularExpression *pattern : {&markup, &toolFraming}) {
        if (pattern == &toolFraming && !source.toolJson)
            continue;
        QRegularExpressionMatchIterator it = pattern->globalMatch(source.text);
        while (it.hasNext()) {
            const QRegularExpressionMatch match = it.next();
            spans.append({match.capturedStart(0), match.capturedEnd(0)});
        }
    }
    std::sort(spans.begin(), spans.end());
    return spans;
}

bool overlaps(const QList<std::pair<qsizetype, qsizetype>> &spans, qsizetype start, qsizetype end)
{
    // The first span that ends after start; it overlaps when it begins before end.
    const auto it =
        std::find_if(spans.cbegin(), spans.cend(), [start](const auto &span) { return span.second > start; });
    return it != spans.cend() && it->first < end;
}

QString excerptAround(const QString &text, qsizetype at, qsizetype length)
{
    constexpr qsizetype Context = 160;
    const qsizetype start =
        std::max<qsizetype>(0, text.lastIndexOf(QLatin1Char('\n'), std::max<qsizetype>(0, at - Context)));
    qsizetype end = text.indexOf(QLatin1Char('\n'), std::min(text.size(), at + length + Context));
    if (end < 0)
        end = text.size();
    return text.mid(start, end - start).trimmed();
}

} // namespace

QList<DroppedDetail> find(const MessageList &compacted, const QString &kept, int limit)
{
    // JSON-escaped outputs carry "\n" as two characters: read them as line breaks.
    QList<Source> sources = texts(compacted);
    QList<QList<std::pair<qsizetype, qsizetype>>> framing;
    for (Source &source : sources) {
        source.text.replace(QStringLiteral("\\n"), QStringLiteral("\n"));
        framing.append(framingSpans(source));
    }

    static const QRegularExpression path(QStringLiteral(
        R"((?<![\w/.-])(?:[\w.-]+/)+(?:[\w.-]*[\w-])?|(?<![\w/.-])[\w-]+\.(?:cpp|h|hpp|c|cc|py|js|ts|go|rs|java|kt|md|json|txt|yaml|yml|toml|cmake|sh|qml|ui|xml|html|css)\b)"));
    static const QRegularExpression identifier(QStringLiteral(
        R"(\b(?:[A-Za-z_]\w*::)+[A-Za-z_~]\w*\b|\b[a-z]+(?:[A-Z][a-z0-9]*)+\b|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b)"));
    static const QRegularExpression number(QStringLiteral(R"((?<![\w.])\d+(?:[.,]\d+)*(?![\w.]))"));
    static const QRegularExpression errorLine(
        QStringLiteral(
            R"(^[^\n]*\b(?:error|Error|ERROR|failed|FAILED|exception|Exception|panic|fatal)\b[^\n]*$)"),
        QRegularExpression::MultilineOption);

    QList<DroppedDetail> result;
    QSet<QString> seen;
    auto collect = [&](DroppedDetail::Kind kind, const QRegularExpression &pattern, qsizetype minLength) {
        for (qsizetype i = 0; i < sources.size(); ++i) {
            const QString &source = sources.at(i).text;
            QRegularExpressionMatchIterator it = pattern.globalMatch(source);
            while (it.hasNext()) {
                if (result.size() >= limit)
                    return;
                const QRegularExpressionMatch match = it.next();
                qsizetype start = match.capturedStart(0);
                const qsizetype end = match.capturedEnd(0);
                if (kind == DroppedDetail::Kind::Error) {
                    // An error line of a read file: the line without its line:hash| prefix.
                    for (const auto &span : framing.at(i)) {
                        if (span.first <= start && span.second > start)
                            start = span.second;
                    }
                } else if (overlaps(framing.at(i), start, end)) {
                    continue;
                }
                const QString text = source.mid(start, end - start).trimmed();
                if (text.size() < minLength || seen.contains(text) || kept.contains(text))
                    continue;
                seen.insert(text);
                result.append(DroppedDetail{
                    kind, text,
                    kind == DroppedDetail::Kind::Error
                        ? text
                        : excerptAround(source, match.capturedStart(0), match.capturedLength(0))});
            }
        }
    };
    collect(DroppedDetail::Kind::Path, path, 3);
    collect(DroppedDetail::Kind::Error, errorLine, 8);
    collect(DroppedDetail::Kind::Identifier, identifier, 4);
    collect(DroppedDetail::Kind::Number, number, 3);
    return result;
}

} // namespace keen::DroppedDetails
