#include "conversation/toolcalltext.h"

#include <QHash>
#include <QJsonArray>
#include <QStringList>

namespace keen {

QString ToolCallText::label(const QString &toolName)
{
    static const QHash<QString, QString> labels{
        {QStringLiteral("read_file"), QStringLiteral("Read")},
        {QStringLiteral("write_file"), QStringLiteral("Write")},
        {QStringLiteral("edit_file"), QStringLiteral("Edit")},
        {QStringLiteral("grep"), QStringLiteral("Search")},
        {QStringLiteral("glob"), QStringLiteral("Find")},
        {QStringLiteral("bash"), QStringLiteral("Run")},
        {QStringLiteral("web_fetch"), QStringLiteral("Fetch")},
        {QStringLiteral("call_mcp_tool"), QStringLiteral("MCP")},
        {QStringLiteral("delegate_task"), QStringLiteral("Delegate")},
        {QStringLiteral("ask_user"), QStringLiteral("Ask")},
    };
    if (const auto it = labels.constFind(toolName); it != labels.constEnd())
        return it.value();
    QStringList words = toolName.split(QLatin1Char('_'), Qt::SkipEmptyParts);
    for (QString &word : words)
        word[0] = word.at(0).toUpper();
    return words.join(QLatin1Char(' '));
}

QString ToolCallText::detail(const QString &toolName, const QJsonObject &input)
{
    if (toolName == QLatin1String("bash"))
        return input.value(QStringLiteral("command")).toString().section(QLatin1Char('\n'), 0, 0);
    if (toolName == QLatin1String("grep") || toolName == QLatin1String("glob")) {
        QString text = input.value(QStringLiteral("pattern")).toString();
        const QString path = input.value(QStringLiteral("path")).toString();
        if (!path.isEmpty())
            text += QStringLiteral(" in ") + path;
        return text;
    }
    if (toolName == QLatin1String("web_fetch"))
        return input.value(QStringLiteral("url")).toString();
    if (toolName == QLatin1String("delegate_task")) {
        QStringList agents;
        for (const QJsonValue &task : input.value(QStringLiteral("tasks")).toArray()) {
            const QString agent = task.toObject().value(QStringLiteral("agent")).toString();
            if (!agents.contains(agent))
                agents.append(agent);
        }
        return agents.join(QStringLiteral(", "));
    }
    if (toolName == QLatin1String("ask_user")) {
        const QJsonArray questions = input.value(QStringLiteral("questions")).toArray();
        return questions.isEmpty()
                   ? QString()
                   : questions.first().toObject().value(QStringLiteral("question")).toString();
    }
    if (toolName == QLatin1String("call_mcp_tool"))
        return input.value(QStringLiteral("server")).toString() + QLatin1Char('/') +
               input.value(QStringLiteral("tool")).toString();
    return input.value(QStringLiteral("path")).toString();
}

QString ToolCallText::command(const QJsonObject &input)
{
    return input.value(QLatin1String("command")).toString();
}

QString ToolCallText::line(const QString &toolName, const QJsonObject &input)
{
    const QString shown = detail(toolName, input);
    return shown.isEmpty() ? label(toolName) : label(toolName) + QLatin1Char(' ') + shown;
}

} // namespace keen
