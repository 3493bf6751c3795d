#pragma once

#include <QFuture>
#include <QList>
#include <QString>

#include <functional>

namespace keen {

class ChatModel;
struct ChatItem;

// Find in the conversation: where a text occurs in the rows of a ChatModel, ignoring case, in each row's text
// (a reply's Markdown as it reads on screen, a tool card's lines). A pass over the text of the rows, nothing
// laid out; at most MaxMatches are counted. Each row's shown text is kept, case-folded, from one search to
// the next (found again only for a row whose text changed): reducing 30 MB of Markdown took most of a
// search's time, on the GUI thread, at every pause in typing. prepare() makes them on a worker thread when
// the find bar opens, while the person types; clear() lets them go when it closes.
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
    QList<Match> find(const ChatModel &model, const QString &needle,
                      const std::function<bool(int row)> &shown);
    void prepare(const ChatModel &model);
    void clear();

private:
    struct Row
    {
        QString source; // the row's text it was made from: shares its buffer, so an edit of it detaches
        QString folded; // what the row shows, case-folded
    };
    struct Source
    {
        QString text;
        bool markdown = false; // a reply or a note, shown rendered
        bool itemsOwn = false; // the item's own string (a card's text is made each time)
    };
    static Source sourceOf(const ChatItem &item);
    static Row rowFor(const Source &source);

    QList<Row> m_rows; // by row
    QFuture<QList<Row>> m_prepared;
};

} // namespace keen
