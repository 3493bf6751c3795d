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

} // namespace keen
