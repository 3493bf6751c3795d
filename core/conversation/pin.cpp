#include "conversation/pin.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStringList>
#include <QUuid>

namespace keen {

namespace {

constexpr std::pair<Pin::Kind, QLatin1StringView> kKindNames[] = {
    {Pin::Kind::Note, QLatin1StringView("note")},
    {Pin::Kind::Message, QLatin1StringView("message")},
    {Pin::Kind::CodeBlock, QLatin1StringView("code_block")},
    {Pin::Kind::ToolResult, QLatin1StringView("tool_result")},
    {Pin::Kind::Detail, QLatin1StringView("detail")},
};

// A path of a search result, relative to where the search ran when it is inside it.
QString relativeTo(const QString &base, const QString &path)
{
    if (!base.isEmpty() && path.startsWith(base + QLatin1Char('/')))
        return path.mid(base.size() + 1);
    return path;
}

// What the card of a tool that returned this object showed, or nothing when the shape is not known.
QString readableToolOutput(const QJsonObject &output)
{
    const auto string = [&output](const char *key) { return output.value(QLatin1String(key)).toString(); };
    const QString base = string("base_path");
    if (const QJsonValue content = output.value(QStringLiteral("content")); content.isString()) {
        // read_file: each line "NUMBER:HASH|text".
        static const QRegularExpression prefix(QStringLiteral(R"(^\d+:[0-9a-fA-F]{3}\|)"),
                                               QRegularExpression::MultilineOption);
        return content.toString().remove(prefix);
    }
    if (output.contains(QStringLiteral("stdout")) || output.contains(QStringLiteral("stderr"))) {
        // bash: its output, stderr after stdout.
        QString text = string("stdout");
        const QString errors = string("stderr");
        if (!errors.isEmpty())
            text += (text.isEmpty() || text.endsWith(QLatin1Char('\n')) ? QString() : QStringLiteral("\n")) +
                    errors;
        while (text.endsWith(QLatin1Char('\n')))
            text.chop(1);
        return text;
    }
    if (const QJsonValue matches = output.value(QStringLiteral("matches")); matches.isArray()) {
        // grep: "file:line: text", as a search's output reads.
        QStringList lines;
        for (const QJsonValue &value : matches.toArray()) {
            const QJsonObject match = value.toObject();
            lines.append(QStringLiteral("%1:%2: %3")
                             .arg(relativeTo(base, match.value(QStringLiteral("file")).toString()))
                             .arg(match.value(QStringLiteral("line_number")).toInteger())
                             .arg(match.value(QStringLiteral("line")).toString()));
        }
        return lines.join(QLatin1Char('\n'));
    }
    if (const QJsonValue files = output.value(QStringLiteral("files")); files.isArray()) {
        // glob, grep for files: one path a line.
        QStringList lines;
        for (const QJsonValue &value : files.toArray())
            lines.append(relativeTo(base, value.toString()));
        return lines.join(QLatin1Char('\n'));
    }
    if (const QString error = string("error"); !error.isEmpty())
        return error;
    if (string("status") == QLatin1String("error") && !string("message").isEmpty())
        return string("message");
    return {};
}

} // namespace

QString Pin::headline() const
{
    const QString shown = shownText().trimmed();
    QString line = shown.section(QLatin1Char('\n'), 0, 0);
    // A dropped detail's excerpt begins with the lines before it ("read_file" above "path: file0.txt"): it is
    // named by the line that holds the detail (its source is "<kind> <detail>").
    if (const QString detail = source.section(QLatin1Char(' '), 1);
        kind == Kind::Detail && !detail.isEmpty()) {
        for (const QStringView candidate : QStringView(shown).split(QLatin1Char('\n'))) {
            if (candidate.contains(detail)) {
                line = candidate.trimmed().toString();
                break;
            }
        }
    }
    if (line.size() > 120)
        line = line.left(119) + QStringLiteral("…");
    return line;
}

QString Pin::shownText() const
{
    if (kind != Kind::ToolResult)
        return text;
    const QJsonDocument document = QJsonDocument::fromJson(text.toUtf8());
    if (!document.isObject())
        return text; // the output as text already (bash), or what a tool returned as text
    const QJsonObject output = document.object();
    if (QString readable = readableToolOutput(output); !readable.trimmed().isEmpty())
        return readable;
    // Another tool: its values, one "key: value" a line, as the card's details read.
    QStringList lines;
    for (auto it = output.constBegin(); it != output.constEnd(); ++it) {
        if (it.value().isString())
            lines.append(it.key() + QStringLiteral(": ") + it.value().toString());
        else if (it.value().isDouble() || it.value().isBool())
            lines.append(it.key() + QStringLiteral(": ") + it.value().toVariant().toString());
    }
    return lines.isEmpty() ? text : lines.join(QLatin1Char('\n'));
}

QString Pin::kindName(Kind kind)
{
    for (const auto &[known, name] : kKindNames) {
        if (known == kind)
            return QString(name);
    }
    return {};
}

std::optional<Pin::Kind> Pin::kindFromName(const QString &name)
{
    for (const auto &[kind, known] : kKindNames) {
        if (name == known)
            return kind;
    }
    return std::nullopt;
}

QString Pin::newId()
{
    return QStringLiteral("pin-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
}

} // namespace keen
