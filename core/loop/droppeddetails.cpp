#include "loop/droppeddetails.h"

#include "conversation/historyreplay.h"

#include <QRegularExpression>
#include <QSet>

namespace keen::DroppedDetails {

namespace {

// Every text of the compacted range: messages, tool inputs and outputs (retained or raw).
QStringList texts(const MessageList &messages)
{
    QStringList result;
    for (int i = 0; i < messages.size(); ++i) {
        const Message &message = messages.at(i);
        if (message.role == Message::Role::System)
            continue;
        if (message.role == Message::Role::User) {
            result.append(message.content);
            continue;
        }
        const QList<ReplayStep> steps = replaySteps(message, i);
        for (const ReplayStep &step : steps) {
            if (step.kind == ReplayStep::Kind::Text) {
                result.append(step.text);
            } else {
                result.append(serializeJson(step.input));
                result.append(step.result);
            }
        }
    }
    return result;
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

QList<DroppedDetail> find(const MessageList &compacted, const QString &summary, int limit)
{
    // JSON-escaped outputs carry "\n" as two characters: read them as line breaks.
    QStringList sources = texts(compacted);
    for (QString &source : sources)
        source.replace(QStringLiteral("\\n"), QStringLiteral("\n"));

    static const QRegularExpression path(QStringLiteral(
        R"((?<![\w/.-])(?:[\w.-]+/)+[\w.-]+|(?<![\w/.-])[\w-]+\.(?:cpp|h|hpp|c|cc|py|js|ts|go|rs|java|kt|md|json|txt|yaml|yml|toml|cmake|sh|qml|ui|xml|html|css)\b)"));
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
        for (const QString &source : std::as_const(sources)) {
            QRegularExpressionMatchIterator it = pattern.globalMatch(source);
            while (it.hasNext()) {
                if (result.size() >= limit)
                    return;
                const QRegularExpressionMatch match = it.next();
                const QString text = match.captured(0).trimmed();
                if (text.size() < minLength || seen.contains(text) || summary.contains(text))
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
