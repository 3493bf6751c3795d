#include "conversation/toolactivity.h"

namespace keen {

QJsonObject ToolActivity::toJson() const
{
    QJsonObject object{
        {QStringLiteral("text_offset"), textOffset},
        {QStringLiteral("tool"), tool},
        {QStringLiteral("status"), status},
    };
    if (!input.isUndefined() && !input.isNull())
        object.insert(QStringLiteral("input"), input);
    if (exitCode)
        object.insert(QStringLiteral("exit_code"), *exitCode);
    if (!retainedOutput.isUndefined() && !retainedOutput.isNull())
        object.insert(QStringLiteral("retained_output"), retainedOutput);
    if (!reasoning.isEmpty())
        object.insert(QStringLiteral("reasoning"), reasoning);
    return object;
}

ToolActivity ToolActivity::fromJson(const QJsonObject &object)
{
    ToolActivity activity;
    activity.textOffset = object.value(QStringLiteral("text_offset")).toInt();
    activity.tool = object.value(QStringLiteral("tool")).toString();
    // Absent fields read as null, like a fresh ToolActivity, so a round trip compares equal.
    const QJsonValue input = object.value(QStringLiteral("input"));
    activity.input = input.isUndefined() ? QJsonValue() : input;
    activity.status = object.value(QStringLiteral("status")).toString();
    const QJsonValue exit = object.value(QStringLiteral("exit_code"));
    if (exit.isDouble())
        activity.exitCode = exit.toInt();
    const QJsonValue retained = object.value(QStringLiteral("retained_output"));
    activity.retainedOutput = retained.isUndefined() ? QJsonValue() : retained;
    activity.reasoning = object.value(QStringLiteral("reasoning")).toString();
    return activity;
}

} // namespace keen
