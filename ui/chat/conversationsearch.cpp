#include "chat/conversationsearch.h"

#include "chat/chatmodel.h"

#include <QtConcurrent/QtConcurrentRun>

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

// The characters that can start a mark shownText takes out or changes.
bool isMark(QChar c)
{
    switch (c.unicode()) {
    case u'\\':
    case u'*':
    case u'`':
    case u'_':
    case u'~':
    case u'|':
    case u'[':
    case u']':
    case u'!':
        return true;
    default:
        return false;
    }
}

// text case-folded in place, as QString::toCaseFolded() would, a character at a time with ASCII first (Qt's
// took most of a first search's time); text with characters beyond the BMP goes to Qt.
QString caseFolded(QString text)
{
    char16_t *at = reinterpret_cast<char16_t *>(text.data());
    char16_t *const end = at + text.size();
    for (; at != end; ++at) {
        if (*at < 0x80) {
            if (*at >= u'A' && *at <= u'Z')
                *at += u'a' - u'A';
        } else if (QChar::isSurrogate(*at)) {
            return std::move(text).toCaseFolded();
        } else {
            *at = char16_t(QChar::toCaseFolded(char32_t(*at))); // the simple folding stays in the BMP
        }
    }
    return text;
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
        // Shown text goes in as runs between the marks (a character at a time made this most of a search's
        // time on a 30 MB session).
        qsizetype run = 0;
        auto skip = [&](qsizetype from, qsizetype to) { // [from, to) shows nothing
            shown += text.sliced(run, from - run);
            run = to;
        };
        for (qsizetype i = 0; i < text.size(); ++i) {
            const QChar c = text.at(i);
            if (!isMark(c))
                continue;
            const QChar next = i + 1 < text.size() ? text.at(i + 1) : QChar();
            if (c == QLatin1Char('\\') && next.isPunct()) {
                skip(i, i + 1); // an escaped mark shows as itself
                ++i;
            } else if (c == QLatin1Char('*') || c == QLatin1Char('`') ||
                       (c == QLatin1Char('_') &&
                        (i == 0 || !text.at(i - 1).isLetterOrNumber() || !next.isLetterOrNumber()))) {
                skip(i, i + 1); // emphasis and code marks (an underscore inside a word is a character)
            } else if (c == QLatin1Char('~') && next == QLatin1Char('~')) {
                skip(i, i + 2); // strike-through marks
                ++i;
            } else if (c == QLatin1Char('|')) {
                skip(i, i + 1);
                shown += QLatin1Char('\n'); // table cells: a match never runs from one into the next
            } else if (c == QLatin1Char(']') && next == QLatin1Char('(') &&
                       text.indexOf(QLatin1Char(')'), i) > 0) {
                const qsizetype close = text.indexOf(QLatin1Char(')'), i);
                skip(i, close + 1); // a link shows its text, not its target
                i = close;
            } else if ((c == QLatin1Char('[') || (c == QLatin1Char('!') && next == QLatin1Char('['))) &&
                       text.indexOf(u"](", i) > 0) {
                skip(i, i + 1); // the opening bracket of a link or an image
            }
        }
        shown += text.sliced(run);
        shown += QLatin1Char('\n');
    }
    return shown;
}

ConversationSearch::Source ConversationSearch::sourceOf(const ChatItem &item)
{
    // Replies and notes are Markdown, shown rendered; a user's message and the cards show their text.
    const bool markdown = item.kind == ChatItem::Kind::AssistantText || item.kind == ChatItem::Kind::Info ||
                          item.kind == ChatItem::Kind::Reasoning;
    const bool itemsOwn = markdown || item.kind == ChatItem::Kind::User;
    return Source{itemsOwn ? item.text : item.plainText(), markdown, itemsOwn};
}

ConversationSearch::Row ConversationSearch::rowFor(const Source &source)
{
    return Row{source.text, caseFolded(source.markdown ? shownText(source.text) : source.text)};
}

void ConversationSearch::prepare(const ChatModel &model)
{
    QList<Source> sources;
    sources.reserve(model.rowCount());
    for (int row = 0; row < model.rowCount(); ++row)
        sources.append(sourceOf(model.item(row)));
    // Only copies of the rows' text go to the worker (their buffers shared, not copied).
    m_prepared = QtConcurrent::run([sources = std::move(sources)] {
        QList<Row> rows;
        rows.reserve(sources.size());
        for (const Source &source : sources)
            rows.append(rowFor(source));
        return rows;
    });
}

void ConversationSearch::clear()
{
    m_prepared = {};
    m_rows.clear();
}

QList<ConversationSearch::Match> ConversationSearch::find(const ChatModel &model, const QString &needle,
                                                          const std::function<bool(int row)> &shown)
{
    QList<Match> matches;
    if (needle.isEmpty())
        return matches;
    if (m_prepared.isValid()) {
        // Less to wait for than to do here: the worker started when the bar opened. Rows changed since are
        // made again below, like any row whose text changed.
        m_rows = m_prepared.result();
        m_prepared = {};
    }
    m_rows.resize(model.rowCount());
    // Case-folded on both sides: what QString's case-insensitive search compares, at the speed of an exact
    // one.
    const QString foldedNeedle = needle.toCaseFolded();
    for (int row = 0; row < model.rowCount() && matches.size() < MaxMatches; ++row) {
        if (shown && !shown(row))
            continue;
        const Source source = sourceOf(model.item(row));
        Row &kept = m_rows[row];
        // The item's own string is the same text while it is the same buffer (kept holds a reference, so an
        // edit detaches); a card's text, made again each time, is compared.
        const bool same =
            !kept.source.isNull() && (source.itemsOwn ? kept.source.constData() == source.text.constData() &&
                                                            kept.source.size() == source.text.size()
                                                      : kept.source == source.text);
        if (!same)
            kept = rowFor(source);
        int occurrence = 0;
        for (qsizetype at = kept.folded.indexOf(foldedNeedle); at >= 0 && matches.size() < MaxMatches;
             at = kept.folded.indexOf(foldedNeedle, at + foldedNeedle.size())) {
            matches.append({row, occurrence++});
        }
    }
    return matches;
}

} // namespace keen
