#pragma once

#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <optional>

namespace keen {

// One multiple-choice question the agent puts to the person (ask_user, reference 2.2): its text and its
// options, the first of which is the recommendation. The window shows these, not the tool's JSON.
struct UserQuestion
{
    QString question;
    QStringList options;

    bool operator==(const UserQuestion &) const = default;

    // The questions of an ask_user call's input ({"questions": [{"question", "options"}, ...]}), in order;
    // an item that is not an object gives an empty question, a non-text option an empty option (the tool
    // refuses such input before anyone is asked).
    static QList<UserQuestion> listFrom(const QJsonObject &askUserInput);
};

using UserQuestionList = QList<UserQuestion>;

// The person's answer to an ask_user call: the chosen option of each question, in order, or cancelled.
struct UserAnswer
{
    QStringList answers;
    bool cancelled = false;

    bool operator==(const UserAnswer &) const = default;

    static UserAnswer cancel() { return {QStringList(), true}; }
    // {"answers": [...], "cancelled": bool}: what the tool returns to the model.
    QJsonObject toJson() const;
    // Read back from a saved tool_end's output; nullopt when it is not such an object (the call failed).
    static std::optional<UserAnswer> fromJson(const QJsonValue &output);
};

} // namespace keen

Q_DECLARE_METATYPE(keen::UserQuestion)
Q_DECLARE_METATYPE(keen::UserQuestionList)
Q_DECLARE_METATYPE(keen::UserAnswer)
