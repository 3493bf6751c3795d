#include "tools/htmltomarkdown.h"

#include <QHash>
#include <QList>
#include <QStringList>

#include <algorithm>

namespace keen {

namespace {

bool isAsciiSpace(QChar c)
{
    return c == u' ' || c == u'\t' || c == u'\n' || c == u'\r' || c == u'\f';
}

bool isAsciiLetter(QChar c)
{
    return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z');
}

const QHash<QString, char16_t> &namedEntities()
{
    static const QHash<QString, char16_t> entities{
        {QStringLiteral("amp"), u'&'},      {QStringLiteral("lt"), u'<'},
        {QStringLiteral("gt"), u'>'},       {QStringLiteral("quot"), u'"'},
        {QStringLiteral("apos"), u'\''},    {QStringLiteral("nbsp"), 0xA0},
        {QStringLiteral("mdash"), 0x2014},  {QStringLiteral("ndash"), 0x2013},
        {QStringLiteral("hellip"), 0x2026}, {QStringLiteral("copy"), 0xA9},
        {QStringLiteral("reg"), 0xAE},      {QStringLiteral("trade"), 0x2122},
        {QStringLiteral("laquo"), 0xAB},    {QStringLiteral("raquo"), 0xBB},
        {QStringLiteral("lsquo"), 0x2018},  {QStringLiteral("rsquo"), 0x2019},
        {QStringLiteral("ldquo"), 0x201C},  {QStringLiteral("rdquo"), 0x201D},
        {QStringLiteral("bull"), 0x2022},   {QStringLiteral("middot"), 0xB7},
        {QStringLiteral("times"), 0xD7},    {QStringLiteral("rarr"), 0x2192},
        {QStringLiteral("larr"), 0x2190},   {QStringLiteral("deg"), 0xB0},
    };
    return entities;
}

struct Attribute
{
    QString name;
    QString value; // entities not yet decoded
};

struct Tag
{
    QString name; // lower case
    bool closing = false;
    bool selfClosing = false;
    bool complete = false; // its '>' was found: a tag cut off by the end of the page is dropped
    QList<Attribute> attributes;

    QString attribute(QLatin1StringView wanted) const
    {
        for (const Attribute &attribute : attributes) {
            if (attribute.name == wanted)
                return HtmlToMarkdown::decodeEntities(attribute.value);
        }
        return {};
    }
};

// The attributes the conversion reads; others are skipped without being copied.
bool isWantedAttribute(QStringView name)
{
    return name == QLatin1String("href") || name == QLatin1String("src") || name == QLatin1String("alt") ||
           name == QLatin1String("class") || name == QLatin1String("start");
}

// "language-cpp" or "lang-cpp" in a class list: the fence's info string.
QString languageOf(const QString &classes)
{
    for (const QString &word : classes.split(u' ', Qt::SkipEmptyParts)) {
        QString language;
        if (word.startsWith(QLatin1String("language-")))
            language = word.mid(9);
        else if (word.startsWith(QLatin1String("lang-")))
            language = word.mid(5);
        const bool clean = std::all_of(language.cbegin(), language.cend(), [](QChar c) {
            return c.isLetterOrNumber() || c == u'-' || c == u'_' || c == u'+' || c == u'#' || c == u'.';
        });
        if (!language.isEmpty() && clean)
            return language;
    }
    return {};
}

// The elements that may sit in <head>; any other one ends it, as in a browser.
bool isHeadContent(const QString &name)
{
    static const QStringList names{
        QStringLiteral("title"), QStringLiteral("meta"),     QStringLiteral("link"),
        QStringLiteral("base"),  QStringLiteral("style"),    QStringLiteral("script"),
        QStringLiteral("head"),  QStringLiteral("noscript"), QStringLiteral("template"),
    };
    return names.contains(name);
}

bool isLineBlock(const QString &name)
{
    static const QStringList names{
        QStringLiteral("div"),        QStringLiteral("section"), QStringLiteral("article"),
        QStringLiteral("header"),     QStringLiteral("footer"),  QStringLiteral("main"),
        QStringLiteral("nav"),        QStringLiteral("aside"),   QStringLiteral("figure"),
        QStringLiteral("figcaption"), QStringLiteral("form"),    QStringLiteral("fieldset"),
        QStringLiteral("legend"),     QStringLiteral("details"), QStringLiteral("summary"),
        QStringLiteral("dl"),         QStringLiteral("dt"),      QStringLiteral("dd"),
        QStringLiteral("address"),    QStringLiteral("center"),  QStringLiteral("caption"),
    };
    return names.contains(name);
}

class Converter
{
public:
    Converter(QStringView html, const QUrl &base)
        : m_html(html)
        , m_base(base)
    {}

    QString run()
    {
        const qsizetype size = m_html.size();
        qsizetype i = 0;
        while (i < size) {
            const qsizetype lt = m_html.indexOf(u'<', i);
            if (lt < 0) {
                text(m_html.sliced(i));
                break;
            }
            if (lt > i)
                text(m_html.sliced(i, lt - i));
            i = markup(lt);
        }
        if (m_preDepth > 0) {
            m_preDepth = 0;
            flushPre();
        }
        if (m_tableDepth > 0) {
            m_tableDepth = 1;
            endTable();
        }
        QString result = std::move(m_out);
        if (!m_sawH1 && !m_title.isEmpty())
            result.prepend(QStringLiteral("# ") + m_title + QStringLiteral("\n\n"));
        while (!result.isEmpty() && result.back().isSpace())
            result.chop(1);
        return result;
    }

private:
    // The markup at lt ("<..."); returns where the text after it starts.
    qsizetype markup(qsizetype lt)
    {
        const qsizetype size = m_html.size();
        const QChar next = lt + 1 < size ? m_html.at(lt + 1) : QChar();
        if (m_html.sliced(lt).startsWith(u"<!--")) {
            const qsizetype end = m_html.indexOf(u"-->", lt + 4);
            return end < 0 ? size : end + 3;
        }
        if (next == u'!' || next == u'?') { // doctype, CDATA, processing instruction
            const qsizetype end = m_html.indexOf(u'>', lt);
            return end < 0 ? size : end + 1;
        }
        const bool closing = next == u'/';
        const qsizetype nameStart = lt + (closing ? 2 : 1);
        if (nameStart >= size || !isAsciiLetter(m_html.at(nameStart))) {
            text(m_html.sliced(lt, 1));
            return lt + 1;
        }
        Tag tag;
        tag.closing = closing;
        const qsizetype end = parseTag(nameStart, &tag);
        if (!tag.complete)
            return end;
        if (closing) {
            endTag(tag.name);
            return end;
        }
        if (tag.name == QLatin1String("script") || tag.name == QLatin1String("style") ||
            tag.name == QLatin1String("title")) {
            if (tag.selfClosing)
                return end;
            // Raw text up to the closing tag: markup inside a script is not markup.
            const QString closer = QStringLiteral("</") + tag.name;
            const qsizetype close = m_html.indexOf(closer, end, Qt::CaseInsensitive);
            const qsizetype contentEnd = close < 0 ? size : close;
            if (tag.name == QLatin1String("title") && m_title.isEmpty() && m_svg == 0)
                m_title = HtmlToMarkdown::decodeEntities(m_html.sliced(end, contentEnd - end)).simplified();
            if (close < 0)
                return size;
            const qsizetype gt = m_html.indexOf(u'>', close);
            return gt < 0 ? size : gt + 1;
        }
        startTag(tag);
        return end;
    }

    // Reads the name and the wanted attributes from nameStart; returns the position after '>'.
    qsizetype parseTag(qsizetype nameStart, Tag *tag) const
    {
        const qsizetype size = m_html.size();
        qsizetype j = nameStart;
        while (j < size && !isAsciiSpace(m_html.at(j)) && m_html.at(j) != u'>' && m_html.at(j) != u'/')
            ++j;
        tag->name = m_html.sliced(nameStart, j - nameStart).toString().toLower();
        while (j < size) {
            const QChar c = m_html.at(j);
            if (c == u'>') {
                tag->complete = true;
                return j + 1;
            }
            if (isAsciiSpace(c) || c == u'/') {
                tag->selfClosing = c == u'/';
                ++j;
                continue;
            }
            tag->selfClosing = false;
            const qsizetype attributeStart = j;
            while (j < size && !isAsciiSpace(m_html.at(j)) && m_html.at(j) != u'=' && m_html.at(j) != u'>' &&
                   m_html.at(j) != u'/')
                ++j;
            const QStringView name = m_html.sliced(attributeStart, j - attributeStart);
            while (j < size && isAsciiSpace(m_html.at(j)))
                ++j;
            if (j >= size || m_html.at(j) != u'=') {
                if (name.isEmpty())
                    ++j; // a stray '=' or the like
                continue;
            }
            ++j;
            while (j < size && isAsciiSpace(m_html.at(j)))
                ++j;
            qsizetype valueStart = j;
            qsizetype valueEnd = j;
            if (j < size && (m_html.at(j) == u'"' || m_html.at(j) == u'\'')) {
                const qsizetype close = m_html.indexOf(m_html.at(j), j + 1);
                valueStart = j + 1;
                valueEnd = close < 0 ? size : close;
                j = close < 0 ? size : close + 1;
            } else {
                while (j < size && !isAsciiSpace(m_html.at(j)) && m_html.at(j) != u'>')
                    ++j;
                valueEnd = j;
            }
            const QString lowerName = name.toString().toLower();
            if (isWantedAttribute(lowerName))
                tag->attributes.append(
                    {lowerName, m_html.sliced(valueStart, valueEnd - valueStart).toString()});
        }
        return size;
    }

    bool skipping() const { return m_inHead || m_svg > 0 || m_template > 0 || m_noscript > 0; }
    bool inlineOnly() const { return m_heading > 0 || m_inCell; }

    void startTag(const Tag &tag)
    {
        const QString &name = tag.name;
        if (name == QLatin1String("base")) {
            if (const QString href = tag.attribute(QLatin1StringView("href")); !href.isEmpty())
                m_base = m_base.resolved(QUrl(href));
            return;
        }
        if (m_inHead && !isHeadContent(name))
            m_inHead = false;
        if (name == QLatin1String("head")) {
            m_inHead = true;
            return;
        }
        if (name == QLatin1String("body")) {
            m_inHead = false;
            return;
        }
        if (name == QLatin1String("svg") || name == QLatin1String("template") ||
            name == QLatin1String("noscript")) {
            if (!tag.selfClosing)
                ++(name == QLatin1String("svg")        ? m_svg
                   : name == QLatin1String("template") ? m_template
                                                       : m_noscript);
            return;
        }
        if (skipping())
            return;
        if (m_preDepth > 0) {
            if (name == QLatin1String("pre"))
                ++m_preDepth;
            else if (name == QLatin1String("br"))
                m_preBuffer += u'\n';
            else if (name == QLatin1String("code") && m_preLanguage.isEmpty())
                m_preLanguage = languageOf(tag.attribute(QLatin1StringView("class")));
            return;
        }
        if (name.size() == 2 && name.at(0) == u'h' && name.at(1) >= u'1' && name.at(1) <= u'6') {
            const int level = name.at(1).unicode() - u'0';
            if (level == 1)
                m_sawH1 = true;
            if (inlineOnly()) {
                m_pendingSpace = true;
                return;
            }
            breakLine(2);
            put(QString(QString(level, u'#') + QLatin1Char(' ')));
            m_afterOpenMarker = true;
            m_heading = level;
            m_headingEnd = m_target->size();
            return;
        }
        if (name == QLatin1String("p")) {
            breakLine(2);
        } else if (name == QLatin1String("br")) {
            lineBreak();
        } else if (name == QLatin1String("hr")) {
            if (inlineOnly()) {
                m_pendingSpace = true;
                return;
            }
            breakLine(2);
            put(u"---");
            breakLine(2);
        } else if (isLineBlock(name)) {
            breakLine(1);
        } else if (name == QLatin1String("ul") || name == QLatin1String("ol")) {
            startList(name == QLatin1String("ol"), tag.attribute(QLatin1StringView("start")));
        } else if (name == QLatin1String("li")) {
            listItem();
        } else if (name == QLatin1String("blockquote")) {
            if (m_pieces.size() >= MaxDepth) {
                ++m_ignoredQuotes;
                return;
            }
            breakLine(2);
            pushPiece(Piece::Quote, QStringLiteral("> "));
        } else if (name == QLatin1String("pre")) {
            if (inlineOnly()) { // a code block in a table cell: inline code
                openMark(tag.name, QStringLiteral("`"), QStringLiteral("`"));
                return;
            }
            m_preDepth = 1;
            m_preBuffer.clear();
            m_preLanguage = languageOf(tag.attribute(QLatin1StringView("class")));
        } else if (name == QLatin1String("code") || name == QLatin1String("kbd") ||
                   name == QLatin1String("samp") || name == QLatin1String("tt")) {
            openMark(name, QStringLiteral("`"), QStringLiteral("`"));
        } else if (name == QLatin1String("strong") || name == QLatin1String("b")) {
            openMark(name, QStringLiteral("**"), QStringLiteral("**"));
        } else if (name == QLatin1String("em") || name == QLatin1String("i")) {
            openMark(name, QStringLiteral("*"), QStringLiteral("*"));
        } else if (name == QLatin1String("del") || name == QLatin1String("s") ||
                   name == QLatin1String("strike")) {
            openMark(name, QStringLiteral("~~"), QStringLiteral("~~"));
        } else if (name == QLatin1String("a")) {
            const QString href = tag.attribute(QLatin1StringView("href")).trimmed();
            const QUrl target = href.isEmpty() ? QUrl() : m_base.resolved(QUrl(href));
            if (!target.isValid() || target.scheme().compare(u"javascript", Qt::CaseInsensitive) == 0) {
                openMark(name, QString(), QString()); // its text stays, as plain text
                return;
            }
            openMark(name, QStringLiteral("["),
                     QStringLiteral("](") + target.toString(QUrl::FullyEncoded) + u')');
        } else if (name == QLatin1String("img")) {
            image(tag);
        } else if (name == QLatin1String("table")) {
            startTable();
        } else if (name == QLatin1String("tr")) {
            if (m_tableDepth == 1) {
                endCell();
                endRow();
            } else {
                breakLine(1);
            }
        } else if (name == QLatin1String("td") || name == QLatin1String("th")) {
            if (m_tableDepth == 1) {
                endCell();
                beginCell();
            } else {
                m_pendingSpace = true;
            }
        }
    }

    void endTag(const QString &name)
    {
        if (name == QLatin1String("head")) {
            m_inHead = false;
            return;
        }
        if (name == QLatin1String("svg") || name == QLatin1String("template") ||
            name == QLatin1String("noscript")) {
            int &depth = name == QLatin1String("svg")        ? m_svg
                         : name == QLatin1String("template") ? m_template
                                                             : m_noscript;
            if (depth > 0)
                --depth;
            return;
        }
        if (skipping())
            return;
        if (m_preDepth > 0) {
            if (name == QLatin1String("pre") && --m_preDepth == 0)
                flushPre();
            return;
        }
        if (name.size() == 2 && name.at(0) == u'h' && name.at(1) >= u'1' && name.at(1) <= u'6') {
            if (m_heading == 0) {
                breakLine(1);
                return;
            }
            if (m_target->size() == m_headingEnd) // an empty heading: no lone "#"
                m_target->chop(m_heading + 1);
            m_heading = 0;
            breakLine(2);
            return;
        }
        if (name == QLatin1String("p")) {
            breakLine(2);
        } else if (isLineBlock(name)) {
            breakLine(1);
        } else if (name == QLatin1String("ul") || name == QLatin1String("ol")) {
            endList();
        } else if (name == QLatin1String("li")) {
            breakLine(1);
        } else if (name == QLatin1String("blockquote")) {
            if (m_ignoredQuotes > 0) {
                --m_ignoredQuotes;
                return;
            }
            breakLine(1);
            popPiece(Piece::Quote);
            breakLine(2);
        } else if (name == QLatin1String("table")) {
            if (m_tableDepth == 1)
                endTable();
            else if (m_tableDepth > 1)
                --m_tableDepth;
        } else if (name == QLatin1String("tr")) {
            if (m_tableDepth == 1) {
                endCell();
                endRow();
            }
        } else if (name == QLatin1String("td") || name == QLatin1String("th")) {
            if (m_tableDepth == 1)
                endCell();
        } else {
            closeMark(name);
        }
    }

    // Text between tags: entities decoded, white space collapsed.
    void text(QStringView raw)
    {
        if (m_inHead && std::any_of(raw.cbegin(), raw.cend(), [](QChar c) { return !isAsciiSpace(c); }))
            m_inHead = false; // text ends the head, as in a browser
        if (skipping())
            return;
        QString holder; // only text with entities is copied
        QStringView decoded = raw;
        if (raw.contains(u'&')) {
            holder = HtmlToMarkdown::decodeEntities(raw);
            decoded = holder;
        }
        if (m_preDepth > 0) {
            m_preBuffer += decoded;
            return;
        }
        const qsizetype size = decoded.size();
        qsizetype i = 0;
        while (i < size) {
            if (isAsciiSpace(decoded.at(i))) {
                m_pendingSpace = true;
                ++i;
                continue;
            }
            qsizetype j = i;
            while (j < size && !isAsciiSpace(decoded.at(j)))
                ++j;
            if (m_pendingSpace && !atLineStart() && !m_afterOpenMarker)
                put(u" ");
            const QStringView word = decoded.sliced(i, j - i);
            if (word.contains(QChar(0xA0)))
                put(word.toString().replace(QChar(0xA0), u' ')); // a no-break space reads as a space
            else
                put(word);
            m_pendingSpace = false;
            m_afterOpenMarker = false;
            i = j;
        }
    }

    // Writes s as it is, the line prefix first at the start of a line.
    void put(QStringView s)
    {
        flushBreaks();
        if (m_atLineStart) {
            if (!m_inCell)
                m_target->append(m_prefix);
            m_atLineStart = false;
        }
        m_target->append(s);
        m_newlines = 0;
        m_markerJustWritten = false;
    }

    void newline()
    {
        if (m_atLineStart && !m_inCell) {
            // An empty line inside a quote keeps its ">"; list indentation alone is dropped.
            QStringView prefix = m_prefix;
            while (!prefix.isEmpty() && prefix.back() == u' ')
                prefix.chop(1);
            m_target->append(prefix);
        }
        m_target->append(u'\n');
        m_atLineStart = true;
        ++m_newlines;
        m_pendingSpace = false;
    }

    // Ends the line (wanted 1) or the paragraph (wanted 2); never more than one blank line. The breaks are
    // written with the next text, so a quote or a list that ends before it leaves no prefix on them.
    void breakLine(int wanted)
    {
        if (inlineOnly()) {
            m_pendingSpace = true;
            return;
        }
        if (m_markerJustWritten) // "<li><p>": the item's text stays on the marker's line
            return;
        m_pendingBreak = std::max(m_pendingBreak, wanted);
        m_pendingSpace = false;
    }

    void lineBreak()
    {
        if (inlineOnly()) {
            m_pendingSpace = true;
            return;
        }
        if (m_markerJustWritten)
            return;
        m_pendingBreak = std::min(2, std::max(m_pendingBreak, m_newlines) + 1);
        m_pendingSpace = false;
    }

    void flushBreaks()
    {
        if (m_pendingBreak == 0)
            return;
        const int wanted = m_pendingBreak;
        m_pendingBreak = 0;
        if (m_target->isEmpty())
            return; // nothing above: no leading blank lines
        while (m_newlines < wanted)
            newline();
    }

    // At the start of a line, or about to be: no space goes before the next word.
    bool atLineStart() const { return m_atLineStart || m_pendingBreak > 0; }

    // Inline marks: the opening text is written now, the closing one at the end tag. An empty element
    // takes its opening text back.
    struct Mark
    {
        QString tag;
        QString close;
        qsizetype openSize = 0;
        qsizetype end = 0; // target size after the opening text
        QString *target = nullptr;
    };

    void openMark(const QString &tag, const QString &open, const QString &close)
    {
        if (m_marks.size() >= MaxDepth) // unclosed marks pile up on some pages; never a long stack
            return;
        if (!open.isEmpty()) {
            if (m_pendingSpace && !atLineStart() && !m_afterOpenMarker)
                put(u" ");
            m_pendingSpace = false;
            put(open);
            m_afterOpenMarker = true;
        }
        m_marks.append({tag, close, open.size(), m_target->size(), m_target});
    }

    void closeMark(const QString &tag)
    {
        if (m_marks.isEmpty() || m_marks.constLast().tag != tag)
            return; // misnested or never opened: the text is kept, the mark is not
        const Mark mark = m_marks.takeLast();
        if (mark.target != m_target)
            return; // opened in another table cell
        if (m_target->size() == mark.end) {
            m_target->chop(mark.openSize);
            m_afterOpenMarker = false;
            return;
        }
        if (!mark.close.isEmpty())
            put(mark.close);
    }

    void image(const Tag &tag)
    {
        const QString alt = tag.attribute(QLatin1StringView("alt")).simplified();
        if (alt.isEmpty())
            return;
        const QString src = tag.attribute(QLatin1StringView("src")).trimmed();
        const QUrl url = src.isEmpty() ? QUrl() : m_base.resolved(QUrl(src));
        if (!url.isValid() ||
            url.scheme() == QLatin1String("data")) { // an inline picture's bytes are no use as text
            text(alt);
            return;
        }
        if (m_pendingSpace && !atLineStart() && !m_afterOpenMarker)
            put(u" ");
        m_pendingSpace = false;
        m_afterOpenMarker = false;
        put(QString(QStringLiteral("![") + alt + QStringLiteral("](") + url.toString(QUrl::FullyEncoded) +
                    u')'));
    }

    // Line prefixes: "> " for each quote, indentation for each list level.
    enum class Piece { Quote, List };

    void pushPiece(Piece kind, const QString &text)
    {
        flushBreaks(); // the blank line before a quote is not part of it
        m_pieces.append({kind, text});
        updatePrefix();
    }

    void popPiece(Piece kind)
    {
        for (qsizetype i = m_pieces.size() - 1; i >= 0; --i) {
            if (m_pieces.at(i).first == kind) {
                m_pieces.remove(i);
                break;
            }
        }
        updatePrefix();
    }

    void updatePrefix()
    {
        m_prefix.clear();
        for (const auto &piece : std::as_const(m_pieces))
            m_prefix += piece.second;
    }

    void startList(bool ordered, const QString &start)
    {
        if (m_lists.size() >= MaxDepth || m_pieces.size() >= MaxDepth) {
            ++m_ignoredLists;
            return;
        }
        breakLine(m_lists.isEmpty() ? 2 : 1);
        bool ok = false;
        const int first = start.toInt(&ok);
        m_lists.append({ordered, ok ? first : 1});
        pushPiece(Piece::List, QString());
    }

    void endList()
    {
        if (m_ignoredLists > 0) {
            --m_ignoredLists;
            return;
        }
        if (m_lists.isEmpty())
            return;
        breakLine(1);
        m_lists.removeLast();
        popPiece(Piece::List);
        breakLine(m_lists.isEmpty() ? 2 : 1);
    }

    void listItem()
    {
        if (inlineOnly()) {
            m_pendingSpace = true;
            return;
        }
        breakLine(1);
        QString marker = QStringLiteral("- ");
        if (!m_lists.isEmpty() && m_lists.constLast().first)
            marker = QString::number(m_lists.last().second++) + QStringLiteral(". ");
        // The marker goes after the outer levels' indentation; the item's further lines line up with its
        // text.
        qsizetype listPiece = -1;
        for (qsizetype i = m_pieces.size() - 1; i >= 0 && listPiece < 0; --i) {
            if (m_pieces.at(i).first == Piece::List)
                listPiece = i;
        }
        if (listPiece >= 0 && !m_lists.isEmpty()) {
            m_pieces[listPiece].second.clear();
            updatePrefix();
        }
        put(marker);
        if (listPiece >= 0 && !m_lists.isEmpty()) {
            m_pieces[listPiece].second = QString(marker.size(), u' ');
            updatePrefix();
        }
        m_markerJustWritten = true;
        m_afterOpenMarker = true;
    }

    void flushPre()
    {
        QString code = std::move(m_preBuffer);
        m_preBuffer = QString();
        if (code.startsWith(u'\n')) // the line break right after <pre> is not content
            code.remove(0, 1);
        while (!code.isEmpty() && code.back().isSpace())
            code.chop(1);
        // A fence longer than any run of backticks in the code.
        int longest = 0;
        int run = 0;
        for (const QChar c : std::as_const(code)) {
            run = c == u'`' ? run + 1 : 0;
            longest = std::max(longest, run);
        }
        const QString fence(std::max(3, longest + 1), u'`');
        breakLine(2);
        put(QString(fence + m_preLanguage));
        newline();
        qsizetype start = 0;
        while (start <= code.size() && !code.isEmpty()) {
            qsizetype end = code.indexOf(u'\n', start);
            if (end < 0)
                end = code.size();
            if (end > start)
                put(QStringView(code).sliced(start, end - start));
            newline();
            start = end + 1;
        }
        put(fence);
        breakLine(2);
        m_preLanguage.clear();
    }

    // Tables: the outer one becomes a Markdown table, the first row its header; a table inside a cell is
    // read as text.
    void startTable()
    {
        ++m_tableDepth;
        if (m_tableDepth > 1) {
            m_pendingSpace = true;
            return;
        }
        breakLine(2);
        m_rows.clear();
        m_row.clear();
    }

    void beginCell()
    {
        m_saved = {m_target, m_atLineStart, m_newlines, m_pendingSpace, m_afterOpenMarker, m_pendingBreak};
        m_pendingBreak = 0;
        m_cell.clear();
        m_target = &m_cell;
        m_inCell = true;
        m_atLineStart = true;
        m_newlines = 0;
        m_pendingSpace = false;
        m_afterOpenMarker = false;
    }

    void endCell()
    {
        if (!m_inCell)
            return;
        QString cell = m_cell.trimmed();
        cell.replace(u'\n', u' ');
        cell.replace(QStringLiteral("|"), QStringLiteral("\\|"));
        m_row.append(cell);
        m_inCell = false;
        m_target = m_saved.target;
        m_atLineStart = m_saved.atLineStart;
        m_newlines = m_saved.newlines;
        m_pendingSpace = m_saved.pendingSpace;
        m_afterOpenMarker = m_saved.afterOpenMarker;
        m_pendingBreak = m_saved.pendingBreak;
    }

    void endRow()
    {
        if (!m_row.isEmpty())
            m_rows.append(m_row);
        m_row.clear();
    }

    void endTable()
    {
        endCell();
        endRow();
        m_tableDepth = 0;
        qsizetype columns = 0;
        for (const QStringList &row : std::as_const(m_rows))
            columns = std::max(columns, row.size());
        if (columns == 0)
            return;
        breakLine(1);
        for (qsizetype r = 0; r < m_rows.size(); ++r) {
            QStringList cells = m_rows.at(r);
            while (cells.size() < columns)
                cells.append(QString());
            put(QString(QStringLiteral("| ") + cells.join(QStringLiteral(" | ")) + QStringLiteral(" |")));
            newline();
            if (r == 0) {
                QString separator = QStringLiteral("|");
                for (qsizetype c = 0; c < columns; ++c)
                    separator += QStringLiteral(" --- |");
                put(separator);
                newline();
            }
        }
        m_rows.clear();
        breakLine(2);
    }

    static constexpr qsizetype MaxDepth = 16; // deeper nesting is flattened: prefixes stay short

    QStringView m_html;
    QUrl m_base;
    QString m_out;
    QString *m_target = &m_out;
    QString m_title;
    bool m_sawH1 = false;

    bool m_atLineStart = true;
    int m_newlines = 2;     // the start counts as after a blank line: no leading breaks
    int m_pendingBreak = 0; // line breaks wanted before the next text (1 or 2)
    bool m_pendingSpace = false;
    bool m_afterOpenMarker = false;   // "- ", "# ", "**": the next word follows without a space
    bool m_markerJustWritten = false; // a list marker with nothing after it yet

    bool m_inHead = false;
    int m_svg = 0;
    int m_template = 0;
    int m_noscript = 0;
    int m_heading = 0;
    qsizetype m_headingEnd = 0;

    QList<std::pair<Piece, QString>> m_pieces;
    QString m_prefix;
    QList<std::pair<bool, int>> m_lists; // ordered, next number
    int m_ignoredLists = 0;
    int m_ignoredQuotes = 0;
    QList<Mark> m_marks;

    int m_preDepth = 0;
    QString m_preBuffer;
    QString m_preLanguage;

    int m_tableDepth = 0;
    bool m_inCell = false;
    QString m_cell;
    QStringList m_row;
    QList<QStringList> m_rows;
    struct Saved
    {
        QString *target = nullptr;
        bool atLineStart = true;
        int newlines = 0;
        bool pendingSpace = false;
        bool afterOpenMarker = false;
        int pendingBreak = 0;
    } m_saved;
};

} // namespace

QString HtmlToMarkdown::decodeEntities(QStringView text)
{
    QString out;
    out.reserve(text.size());
    const qsizetype size = text.size();
    qsizetype i = 0;
    while (i < size) {
        const qsizetype amp = text.indexOf(u'&', i);
        if (amp < 0) {
            out += text.sliced(i);
            break;
        }
        out += text.sliced(i, amp - i);
        i = amp + 1;
        // Entity names are short: look at most 32 characters ahead for the ';'.
        qsizetype end = i;
        while (end < size && end - i <= 32 && (text.at(end).isLetterOrNumber() || text.at(end) == u'#'))
            ++end;
        if (end >= size || text.at(end) != u';' || end == i) {
            out += u'&';
            continue;
        }
        const QStringView name = text.sliced(i, end - i);
        if (name.startsWith(u'#')) {
            const bool hex = name.size() > 1 && (name.at(1) == u'x' || name.at(1) == u'X');
            bool ok = false;
            const uint code = name.sliced(hex ? 2 : 1).toUInt(&ok, hex ? 16 : 10);
            if (!ok) { // "&#xZZ;" is text
                out += u'&';
                continue;
            }
            const bool valid = code > 0 && code <= 0x10FFFF && !(code >= 0xD800 && code <= 0xDFFF);
            const char32_t shown = valid ? char32_t(code) : char32_t(0xFFFD);
            out += QString::fromUcs4(&shown, 1);
            i = end + 1;
            continue;
        }
        const auto &entities = namedEntities();
        const auto found = entities.constFind(name.toString());
        if (found == entities.constEnd()) {
            out += u'&';
            continue;
        }
        out += QChar(found.value());
        i = end + 1;
    }
    return out;
}

QString HtmlToMarkdown::convert(QStringView html, const QUrl &baseUrl)
{
    return Converter(html, baseUrl).run();
}

} // namespace keen
