#include "chat/conversationsearch.h"

#include "chat/chatmodel.h"

namespace keen {

namespace {

bool isTableRule(QStringView line)
{
    // |---|:--:| and the like: only pipes, dashes, colons and spaces, with at least one dash and one pipe.
    bool dash = false;
    for (const QChar c : line) {
        if (c == QLatin1Char('-'))
            dash = true;
        else if (c != QLatin1Char('|') && c != QLatin1Char(':') && !c.isSpace())
            return false;
    }
    return dash && line.contains(QLatin1Char('|'));
}

// The line without the marks of its block: quote markers, a heading's hashes, a list item's bullet or number.
QStringView withoutBlockMarks(QStringView line)
{
    qsizetype i = 0;
    auto skipSpaces = [&] {
        while (i < line.size() && line.at(i) == QLatin1Char(' '))
            ++i;
    };
    skipSpaces();
    while (i < line.size() && line.at(i) == QLatin1Char('>')) {
        ++i;
        skipSpaces();
    }
    qsizetype hashes = 0;
    while (i + hashes < line.size() && line.at(i + hashes) == QLatin1Char('#'))
        ++hashes;
    qsizetype digits = 0;
    while (i + digits < line.size() && line.at(i + digits).isDigit())
        ++digits;
    if (hashes > 0 && hashes <= 6 && (i + hashes == line.size() || line.at(i + hashes) == QLatin1Char(' '))) {
        i += hashes;
    } else if (i + 1 < line.size() && QStringView(u"-*+").contains(line.at(i)) &&
               line.at(i + 1) == QLatin1Char(' ')) {
        i += 2;
    } else if (digits > 0 && i + digits + 1 < line.size() &&
               (line.at(i + digits) == QLatin1Char('.') || line.at(i + digits) == QLatin1Char(')')) &&
               line.at(i + digits + 1) == QLatin1Char(' ')) {
        i += digits + 2;
    }
    skipSpaces();
    return line.mid(i);
}

} // namespace

QString ConversationSearch::shownText(const QString &markdown)
{
    QString shown;
    shown.reserve(markdown.size());
    bool inFence = false;
    for (QStringView line : QStringView(markdown).split(QLatin1Char('\n'))) {
        const QStringView trimmed = line.trimmed();
        if (trimmed.startsWith(u"```") || trimmed.startsWith(u"~~~")) {
            inFence = !inFence; // the fence lines themselves show nothing
            shown += QLatin1Char('\n');
            continue;
        }
        if (inFence) { // code shows as written
            shown += line;
            shown += QLatin1Char('\n');
            continue;
        }
        if (isTableRule(trimmed)) {
            shown += QLatin1Char('\n');
            continue;
        }
        const QStringView text = withoutBlockMarks(line);
        for (qsizetype i = 0; i < text.size(); ++i) {
            const QChar c = text.at(i);
            const QChar next = i + 1 < text.size() ? text.at(i + 1) : QChar();
            if (c == QLatin1Char('\\') && next.isPunct()) {
                shown += next; // an escaped mark shows as itself
                ++i;
            } else if (c == QLatin1Char('*') || c == QLatin1Char('`') ||
                       (c == QLatin1Char('_') &&
                        (i == 0 || !text.at(i - 1).isLetterOrNumber() || !next.isLetterOrNumber()))) {
                // emphasis and code marks show nothing (an underscore inside a word is a character)
            } else if (c == QLatin1Char('~') && next == QLatin1Char('~')) {
                ++i; // strike-through marks
            } else if (c == QLatin1Char('|')) {
                shown += QLatin1Char('\n'); // table cells: a match never runs from one into the next
            } else if (c == QLatin1Char(']') && next == QLatin1Char('(') &&
                       text.indexOf(QLatin1Char(')'), i) > 0) {
                i = text.indexOf(QLatin1Char(')'), i); // a link shows its text, not its target
            } else if ((c == QLatin1Char('[') || (c == QLatin1Char('!') && next == QLatin1Char('['))) &&
                       text.indexOf(u"](", i) > 0) {
                // the opening bracket of a link or an image
            } else {
                shown += c;
            }
        }
        shown += QLatin1Char('\n');
    }
    return shown;
}

QList<ConversationSearch::Match> ConversationSearch::find(const ChatModel &model, const QString &needle,
                                                          const std::function<bool(int row)> &shown)
{
    QList<Match> matches;
    if (needle.isEmpty())
        return matches;
    for (int row = 0; row < model.rowCount() && matches.size() < MaxMatches; ++row) {
        if (shown && !shown(row))
            continue;
        const ChatItem &item = model.item(row);
        // Replies and notes are Markdown, shown rendered; a user's message and the cards show their text.
        const bool markdown = item.kind == ChatItem::Kind::AssistantText ||
                              item.kind == ChatItem::Kind::Info || item.kind == ChatItem::Kind::Reasoning;
        const QString text = markdown                            ? shownText(item.text)
                             : item.kind == ChatItem::Kind::User ? item.text
                                                                 : item.plainText();
        int occurrence = 0;
        for (qsizetype at = text.indexOf(needle, 0, Qt::CaseInsensitive);
             at >= 0 && matches.size() < MaxMatches;
             at = text.indexOf(needle, at + needle.size(), Qt::CaseInsensitive)) {
            matches.append({row, occurrence++});
        }
    }
    return matches;
}

} // namespace keen
