#pragma once

#include <QList>
#include <QString>

#include <functional>

namespace keen {

class ChatModel;

// Find in the conversation: where a text occurs in the rows of a ChatModel, ignoring case, in each row's text
// (a reply's Markdown as it reads on screen, a tool card's lines). A pass over the text of the rows, nothing
// laid out; at most MaxMatches are counted.
class ConversationSearch
{
public:
    static constexpr int MaxMatches = 10000;

    struct Match
    {
        int row = 0;
        int occurrence = 0; // which occurrence in its row, from 0
        bool operator==(const Match &) const = default;
    };

    // What a reply's Markdown shows as text, close enough to count matches as the rendered row has them:
    // without emphasis and code marks, heading, quote and list markers, fences, table pipes and rules, and
    // link targets. A line of the text stays a line.
    static QString shownText(const QString &markdown);

    // The matches in the rows shown(row) accepts, in order.
    static QList<Match> find(const ChatModel &model, const QString &needle,
                             const std::function<bool(int row)> &shown);
};

} // namespace keen
