#include "tools/toolinput.h"

#include <QCoreApplication>
#include <QJsonValue>

#include <cmath>

namespace keen {

QString ToolInput::missingRequired(const QString &tool, const QString &parameter,
                                   const QString &requiredFieldsJson, const QString &guidance)
{
    QString message =
        ToolInput::tr(
            "invalid input: missing required \"%1\" parameter. Retry %2 with all required fields: %3")
            .arg(parameter, tool, requiredFieldsJson);
    if (!guidance.isEmpty())
        message += QLatin1Char(' ') + guidance;
    return message;
}

QString ToolInput::wrongType(const QString &tool, const QString &parameter, const QString &expected)
{
    return ToolInput::tr("invalid input: \"%1\" must be %2. Retry %3 with a valid value.")
        .arg(parameter, expected, tool);
}

QString ToolInput::invalid(const QString &tool, const QString &detail)
{
    return ToolInput::tr("invalid input: %1. Retry %2 with valid input.").arg(detail, tool);
}

QString ToolInput::unknownParameters(const QString &tool, const QJsonObject &input,
                                     const QStringList &allowed)
{
    for (auto it = input.constBegin(); it != input.constEnd(); ++it) {
        if (!allowed.contains(it.key()))
            return ToolInput::tr("invalid input: unknown parameter \"%1\". %2 accepts only: %3.")
                .arg(it.key(), tool, allowed.join(QStringLiteral(", ")));
    }
    return {};
}

QString ToolInput::requireStrings(const QString &tool, const QJsonObject &input, const QStringList &required,
                                  const QString &requiredFieldsJson)
{
    for (const QString &key : required) {
        const QJsonValue value = input.value(key);
        if (value.isUndefined() || value.isNull())
            return missingRequired(tool, key, requiredFieldsJson);
        if (!value.isString())
            return wrongType(tool, key, ToolInput::tr("a string"));
    }
    return {};
}

QString ToolInput::optionalInteger(const QString &tool, const QJsonObject &input, const QString &key,
                                   int minimum)
{
    const QJsonValue value = input.value(key);
    if (value.isUndefined() || value.isNull())
        return {};
    const double number = value.toDouble(std::nan(""));
    if (!value.isDouble() || std::floor(number) != number || number < minimum || number > 1e9)
        return wrongType(tool, key, ToolInput::tr("a whole number of at least %1").arg(minimum));
    return {};
}

} // namespace keen
