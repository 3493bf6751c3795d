#include "tools/askusertool.h"

#include "tools/toolinput.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QSet>

namespace keen {

namespace {

const QString Required = QStringLiteral(
    "{\"questions\":[{\"question\":\"<question>\",\"options\":[\"<recommended>\",\"<other>\"]}]}");

} // namespace

QString AskUserTool::name() const
{
    return QStringLiteral("ask_user");
}

QString AskUserTool::description() const
{
    return QStringLiteral(
        "Ask the user one or more multiple-choice questions (1 to 10, each with 2 to 6 distinct options) "
        "when a "
        "decision is genuinely theirs to make and you cannot find the answer yourself. Put your recommended "
        "option first. The user may also type their own answer. Returns the answers in order, or cancelled.");
}

QJsonObject AskUserTool::inputSchema() const
{
    const QJsonObject question{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"),
         QJsonObject{
             {QStringLiteral("question"), QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}}},
             {QStringLiteral("options"),
              QJsonObject{
                  {QStringLiteral("type"), QStringLiteral("array")},
                  {QStringLiteral("items"), QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}}},
                  {QStringLiteral("minItems"), 2},
                  {QStringLiteral("maxItems"), 6},
                  {QStringLiteral("uniqueItems"), true}}},
         }},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("question"), QStringLiteral("options")}},
        {QStringLiteral("additionalProperties"), false},
    };
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"),
         QJsonObject{
             {QStringLiteral("questions"), QJsonObject{{QStringLiteral("type"), QStringLiteral("array")},
                                                       {QStringLiteral("items"), question},
                                                       {QStringLiteral("minItems"), 1},
                                                       {QStringLiteral("maxItems"), 10}}}}},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("questions")}},
        {QStringLiteral("additionalProperties"), false},
    };
}

QString AskUserTool::validateInput(const QJsonObject &input) const
{
    const QString tool = name();
    const QJsonValue questions = input.value(QLatin1String("questions"));
    if (questions.isUndefined() || questions.isNull())
        return ToolInput::missingRequired(tool, QStringLiteral("questions"), Required);
    if (QString error = ToolInput::unknownParameters(tool, input, {QStringLiteral("questions")});
        !error.isEmpty())
        return error;
    const QJsonArray list = questions.toArray();
    if (!questions.isArray() || list.isEmpty() || list.size() > 10)
        return ToolInput::wrongType(tool, QStringLiteral("questions"),
                                    AskUserTool::tr("an array of 1 to 10 questions"));
    int number = 0;
    for (const QJsonValue &value : list) {
        ++number;
        const QJsonObject question = value.toObject();
        if (!value.isObject() || question.value(QLatin1String("question")).toString().trimmed().isEmpty())
            return ToolInput::invalid(
                tool, AskUserTool::tr("question %1 needs a non-empty \"question\" text").arg(number));
        const QJsonArray options = question.value(QLatin1String("options")).toArray();
        if (options.size() < 2 || options.size() > 6)
            return ToolInput::invalid(tool, AskUserTool::tr("question %1 needs 2 to 6 options").arg(number));
        QSet<QString> seen;
        for (const QJsonValue &option : options) {
            const QString text = option.toString().trimmed();
            if (!option.isString() || text.isEmpty())
                return ToolInput::invalid(
                    tool, AskUserTool::tr("question %1 has an empty or non-text option").arg(number));
            if (seen.contains(text))
                return ToolInput::invalid(
                    tool, AskUserTool::tr("question %1 repeats the option \"%2\"").arg(number).arg(text));
            seen.insert(text);
        }
        for (auto it = question.constBegin(); it != question.constEnd(); ++it) {
            if (it.key() != QLatin1String("question") && it.key() != QLatin1String("options"))
                return ToolInput::invalid(
                    tool,
                    AskUserTool::tr("question %1 has an unknown field \"%2\"").arg(number).arg(it.key()));
        }
    }
    return {};
}

ToolResult AskUserTool::execute(const QJsonObject &input, ToolContext &context)
{
    if (!context.interactive || !context.askUser)
        return ToolResult::failure(
            AskUserTool::tr("ask_user is unavailable: no user can answer in this run. Decide "
                            "yourself and say what you assumed."));
    if (context.cancel.isCancelled())
        return ToolResult::failure(AskUserTool::tr("cancelled"));
    QJsonObject answer = context.askUser(input, context.cancel);
    context.running.start(); // the card's time leaves out the person's, as after a permission request
    if (!answer.contains(QLatin1String("answers")))
        answer.insert(QStringLiteral("answers"), QJsonArray());
    if (!answer.contains(QLatin1String("cancelled")))
        answer.insert(QStringLiteral("cancelled"), context.cancel.isCancelled());
    return ToolResult::success(answer);
}

} // namespace keen
