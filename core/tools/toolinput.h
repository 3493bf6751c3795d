#pragma once

#include <QCoreApplication>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace keen {

// Input checks shared by the tools. Messages start with "invalid input:" and tell the model how to retry,
// because it reads them as the tool's error.
class ToolInput
{
    Q_DECLARE_TR_FUNCTIONS(ToolInput)

public:
    // invalid input: missing required "path" parameter. Retry read_file with all required fields:
    // {"path":"<file path>"}. <guidance>
    static QString missingRequired(const QString &tool, const QString &parameter,
                                   const QString &requiredFieldsJson, const QString &guidance = QString());
    static QString wrongType(const QString &tool, const QString &parameter, const QString &expected);
    static QString invalid(const QString &tool, const QString &detail);
    // For schemas with additionalProperties:false: the first key not in allowed, as an error message.
    static QString unknownParameters(const QString &tool, const QJsonObject &input,
                                     const QStringList &allowed);

    // Checks that every name in required is present and a non-empty string.
    static QString requireStrings(const QString &tool, const QJsonObject &input, const QStringList &required,
                                  const QString &requiredFieldsJson);
    // Empty when key is absent or holds a whole number >= minimum.
    static QString optionalInteger(const QString &tool, const QJsonObject &input, const QString &key,
                                   int minimum);
};

} // namespace keen
