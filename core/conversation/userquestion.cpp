#include "conversation/userquestion.h"

#include <QJsonArray>

namespace keen {

QList<UserQuestion> UserQuestion::listFrom(const QJsonObject &askUserInput)
{
    QList<UserQuestion> questions;
    const QJsonArray list = askUserInput.value(QLatin1String("questions")).toArray();
    for (const QJsonValue &value : list) {
        const QJsonObject object = value.toObject();
        UserQuestion question;
        question.question = object.value(QLatin1String("question")).toString();
        const QJsonArray options = object.value(QLatin1String("options")).toArray();
        for (const QJsonValue &option : options)
            question.options.append(option.toString());
        questions.append(question);
    }
    return questions;
}

QJsonObject UserAnswer::toJson() const
{
    return QJsonObject{{QStringLiteral("answers"), QJsonArray::fromStringList(answers)},
                       {QStringLiteral("cancelled"), cancelled}};
}

std::optional<UserAnswer> UserAnswer::fromJson(const QJsonValue &output)
{
    const QJsonObject object = output.toObject();
    const QJsonValue answers = object.value(QLatin1String("answers"));
    const QJsonValue cancelled = object.value(QLatin1String("cancelled"));
    if (!answers.isArray() && !cancelled.isBool())
        return std::nullopt;
    UserAnswer answer;
    for (const QJsonValue &value : answers.toArray())
        answer.answers.append(value.toString());
    answer.cancelled = cancelled.toBool();
    return answer;
}

} // namespace keen
