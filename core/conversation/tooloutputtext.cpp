#include "conversation/tooloutputtext.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QStringList>

namespace keen {

namespace {

// A path of a search result, relative to where the search ran when it is inside it.
QString relativeTo(const QString &base, const QString &path)
{
    if (!base.isEmpty() && path.startsWith(base + QLatin1Char('/')))
        return path.mid(base.size() + 1);
    return path;
}

} // namespace

QString ToolOutputText::readable(const QJsonObject &output)
{
    const auto string = [&output](const char *key) { return output.value(QLatin1String(key)).toString(); };
    const QString base = string("base_path");
    if (const QJsonValue content = output.value(QStringLiteral("content")); content.isString()) {
        // read_file: each line "NUMBER:HASH|text".
        static const QRegularExpression prefix(QStringLiteral(R"(^\d+:[0-9a-fA-F]{3}\|)"),
                                               QRegularExpression::MultilineOption);
        return content.toString().remove(prefix);
    }
    if (output.contains(QStringLiteral("stdout")) || output.contains(QStringLiteral("stderr")))
        return commandOutput(output); // bash
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

QString ToolOutputText::commandOutput(const QJsonObject &output)
{
    QString text = output.value(QStringLiteral("stdout")).toString();
    const QString errors = output.value(QStringLiteral("stderr")).toString();
    if (!errors.isEmpty())
        text +=
            (text.isEmpty() || text.endsWith(QLatin1Char('\n')) ? QString() : QStringLiteral("\n")) + errors;
    while (text.endsWith(QLatin1Char('\n')))
        text.chop(1);
    return text;
}

QJsonObject ToolOutputText::asObject(const QJsonValue &output)
{
    if (output.isString())
        return QJsonDocument::fromJson(output.toString().toUtf8()).object();
    return output.toObject();
}

QString ToolOutputText::shown(const QJsonValue &output)
{
    const QJsonObject object = asObject(output);
    if (object.isEmpty())
        return output.isString() ? output.toString() : QString();
    if (QString text = readable(object); !text.trimmed().isEmpty())
        return text;
    // Another tool: its values, one "key: value" a line, as the card's details read.
    QStringList lines;
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        if (it.value().isString())
            lines.append(it.key() + QStringLiteral(": ") + it.value().toString());
        else if (it.value().isDouble() || it.value().isBool())
            lines.append(it.key() + QStringLiteral(": ") + it.value().toVariant().toString());
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace keen
