#include "loop/droppeddetails.h"

#include "conversation/historyreplay.h"

#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <iterator>

namespace keen::DroppedDetails {

namespace {

using Spans = QList<std::pair<qsizetype, qsizetype>>;

// One text of the compacted range as a person would read it. A tool's JSON input or output is rendered as
// "key: value" lines from its decoded values; framing marks where the text holds framing rather than content,
// and errors holds what a tool reported as its error (issue 16: the list named `{"status":"error"}`).
struct Source
{
    QString text;
    Spans framing;
    QStringList errors;
    bool toolText = false; // a tool's output that is no JSON: its keys and line prefixes are framing
};

// One scalar of a JSON text: its key (empty in an array), its decoded value, and whether it was a string.
struct Field
{
    QString key;
    QString value;
    bool isString = true;
};

bool looksLikeJson(const QString &text)
{
    // Strict JSON, or a cut one that still opens like an object or an array of them ("[12/40] Building" is
    // a line of build output, not JSON).
    static const QRegularExpression opening(QStringLiteral(R"(^\s*(?:\{\s*["}]|\[\s*[\[{"\]]))"));
    if (opening.match(text).hasMatch())
        return true;
    QJsonParseError error;
    QJsonDocument::fromJson(text.toUtf8(), &error);
    return error.error == QJsonParseError::NoError;
}

// The scalars of a JSON text in the order they appear, nesting flattened. Lenient: a text cut off in the
// middle yields what it holds up to the cut. A string value that is itself strict JSON (OpenAI's tool call
// arguments) is read as JSON, its fields in its place.
QList<Field> jsonFields(const QString &text)
{
    QList<Field> fields;
    QString key;
    qsizetype i = 0;
    const qsizetype size = text.size();
    while (i < size) {
        const QChar c = text.at(i);
        if (c == QLatin1Char('"')) {
            QString value;
            ++i;
            while (i < size && text.at(i) != QLatin1Char('"')) {
                if (text.at(i) != QLatin1Char('\\') || i + 1 >= size) {
                    value += text.at(i++);
                    continue;
                }
                const QChar escaped = text.at(i + 1);
                i += 2;
                switch (escaped.unicode()) {
                case 'n':
                    value += QLatin1Char('\n');
                    break;
                case 't':
                    value += QLatin1Char('\t');
                    break;
                case 'r':
                    value += QLatin1Char('\r');
                    break;
                case 'b':
                    value += QLatin1Char('\b');
                    break;
                case 'f':
                    value += QLatin1Char('\f');
                    break;
                case 'u': {
                    bool ok = false;
                    const ushort unit = text.mid(i, 4).toUShort(&ok, 16);
                    if (ok) {
                        value += QChar(unit); // a surrogate pair arrives as its two escapes
                        i += 4;
                    }
                    break;
                }
                default:
                    value += escaped;
                    break;
                }
            }
            ++i; // the closing quote
            qsizetype next = i;
            while (next < size && text.at(next).isSpace())
                ++next;
            if (next < size && text.at(next) == QLatin1Char(':')) {
                key = value;
                i = next + 1;
                continue;
            }
            const QString trimmed = value.trimmed();
            QJsonParseError error{};
            if ((trimmed.startsWith(QLatin1Char('{')) || trimmed.startsWith(QLatin1Char('['))) &&
                (QJsonDocument::fromJson(trimmed.toUtf8(), &error),
                 error.error == QJsonParseError::NoError)) {
                fields.append(jsonFields(trimmed));
            } else {
                fields.append({key, value, true});
            }
        } else if (c.isDigit() || c == QLatin1Char('-')) {
            const qsizetype begin = i;
            while (i < size && (text.at(i).isDigit() || QStringView(u"+-.eE").contains(text.at(i))))
                ++i;
            fields.append({key, text.mid(begin, i - begin), false});
        } else {
            // Punctuation, true, false and null: no details.
            ++i;
        }
    }
    return fields;
}

// A line of read_file output starts with its number and hash: framing, as spans of value at offset.
void appendLinePrefixes(Spans &spans, const QString &value, qsizetype offset)
{
    static const QRegularExpression prefix(QStringLiteral(R"(^\d+:[0-9a-fA-F]{3}\|)"),
                                           QRegularExpression::MultilineOption);
    QRegularExpressionMatchIterator it = prefix.globalMatch(value);
    while (it.hasNext()) {
        const QRegularExpressionMatch match = it.next();
        spans.append({offset + match.capturedStart(0), offset + match.capturedEnd(0)});
    }
}

// A tool's input or output. JSON becomes "key: value" lines, the keys framing; what the tool reported as
// its error (an "error" value, or the message of a result whose status is error) is an error detail.
Source toolSource(const QString &heading, const QString &json, bool isError)
{
    Source source;
    if (!heading.isEmpty()) {
        source.text = heading + QLatin1Char('\n');
        source.framing.append({0, heading.size()});
    }
    if (!looksLikeJson(json)) {
        source.text += json;
        source.toolText = true;
        return source;
    }
    const QList<Field> fields = jsonFields(json);
    for (const Field &field : fields) {
        if (field.key == QLatin1String("status") && field.value == QLatin1String("error"))
            isError = true;
    }
    for (const Field &field : fields) {
        if (!field.key.isEmpty()) {
            const qsizetype keyStart = source.text.size();
            source.text += field.key + QStringLiteral(": ");
            source.framing.append({keyStart, source.text.size()});
        }
        if (field.isString)
            appendLinePrefixes(source.framing, field.value, source.text.size());
        source.text += field.value + QLatin1Char('\n');
        const bool reported =
            field.key == QLatin1String("error") || (isError && field.key == QLatin1String("message"));
        if (reported && field.isString) {
            const QStringList lines = field.value.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
            for (const QString &line : lines)
                source.errors.append(line.trimmed());
        }
    }
    return source;
}

// Every text of the compacted range: messages, tool inputs and outputs (retained or raw).
QList<Source> texts(const MessageList &messages)
{
    QList<Source> result;
    for (int i = 0; i < messages.size(); ++i) {
        const Message &message = messages.at(i);
        if (message.role == Message::Role::System)
            continue;
        if (message.role == Message::Role::User) {
            result.append({message.content, {}, {}, false});
            continue;
        }
        const QList<ReplayStep> steps = replaySteps(message, i);
        for (const ReplayStep &step : steps) {
            if (step.kind == ReplayStep::Kind::Text) {
                result.append({step.text, {}, {}, false});
            } else {
                result.append(toolSource(step.tool, serializeJson(step.input), false));
                result.append(toolSource(QString(), step.result, step.isError));
            }
        }
    }
    return result;
}

// Where a text holds framing rather than content, as [start, end) spans in order: the tags of Keen's own
// compaction replacement (an earlier summary is part of the range), the keys of tool JSON and the
// line:hash| prefixes of read_file. A hit inside one is no detail of the conversation (issue 16).
Spans framingSpans(const Source &source)
{
    static const QRegularExpression markup(
        QStringLiteral(R"(</?(?:compacted_context|last_user_message|pinned_context)>|</?pin\b[^>\n]*>)"));
    static const QRegularExpression toolFraming(
        QStringLiteral(R"("[A-Za-z_]\w*"(?=\s*:)|^\d+:[0-9a-fA-F]{3}\|)"),
        QRegularExpression::MultilineOption);
    Spans spans = source.framing;
    for (const QRegularExpression *pattern : {&markup, &toolFraming}) {
        if (pattern == &toolFraming && !source.toolText)
            continue;
        QRegularExpressionMatchIterator it = pattern->globalMatch(source.text);
        while (it.hasNext()) {
            const QRegularExpressionMatch match = it.next();
            spans.append({match.capturedStart(0), match.capturedEnd(0)});
        }
    }
    std::sort(spans.begin(), spans.end());
    return spans;
}

bool overlaps(const Spans &spans, qsizetype start, qsizetype end)
{
    // The first span that ends after start; it overlaps when it begins before end.
    const auto it =
        std::find_if(spans.cbegin(), spans.cend(), [start](const auto &span) { return span.second > start; });
    return it != spans.cend() && it->first < end;
}

// errno names as programs print them (ENOENT, EACCES, ECONNREFUSED): identifiers, and the start of an error
// line ("ENOENT: no such file or directory"). Listed, not guessed: "EVERY" or "EDIT" in shouted prose is
// none.
const QString &errnoNames()
{
    static const QString names = QStringLiteral(
        R"(E(?:NO(?!UGH\b)[A-Z]{2,}|ACCES|PERM|EXIST|ISDIR|INVAL|AGAIN|WOULDBLOCK|CONN(?:REFUSED|RESET|ABORTED))"
        R"(|TIMEDOUT|ADDRINUSE|ADDRNOTAVAIL|MFILE|NFILE|PIPE|BADF|BUSY|ROFS|XDEV|INTR|NXIO|2BIG|CHILD|FAULT)"
        R"(|SPIPE|DEADLK|NAMETOOLONG|LOOP|HOSTUNREACH|NETUNREACH|PROTO|ALREADY|INPROGRESS|SRCH|TXTBSY|FBIG)"
        R"(|MLINK|OVERFLOW|CANCELED))");
    return names;
}

// Whether a line (its framing skipped) looks like error output rather than prose that names an error (issue
// 16, tried as a user: "we saw error code E1234" was listed as an error): a compiler's or a tool's message
// ("src/a.cpp:88: error: ...", "ninja: build stopped: subcommand failed.", "fatal: not a git repository",
// "TypeError: ...", "error[E0425]: ...", "tst_cli failed: ...", "ENOENT: no such file ..."), a test runner's
// verdict ("FAILED x"), a crash, a system error after a program's name ("bash: ./x.sh: Permission denied",
// "a.cpp:(.text+0x1d): undefined reference to `f'"), curl's numbered error or an uncaught Java exception.
bool looksLikeErrorOutput(const QString &line)
{
    // Programs and locations in front ("ninja: ", "src/a.cpp:88:12: "), at most one lower-case word more (a
    // test's or a step's name, not "It"), then the keyword with its codes and a colon.
    static const QRegularExpression message(
        QStringLiteral(
            R"(^\s*(?:[\w.+/\\-]+(?::\d+){0,2}:\s+)*(?:[a-z_][\w.+-]*\s+)?)"
            R"((?:error|Error|ERROR|fatal|Fatal|FATAL|panic|PANIC|failed|FAILED|FAIL|Traceback|%1|)"
            R"((?:[a-z]\w*\.)*[A-Z]\w*(?:Error|Exception))(?:\s*(?:\[[^\]\n]*\]|\([^)\n]*\)|\d+))*:(?:\s|$))")
            .arg(errnoNames()));
    // A program's last word: "ninja: build stopped: subcommand failed.", "make: *** [all] Error 2" (a
    // program's name, not a prose "Note:").
    static const QRegularExpression verdict(
        QStringLiteral(R"(^\s*[a-z][\w.+-]*:\s.*(?:\b(?:failed|FAILED)|\bError \d+)[.!]?\s*$)"));
    // A runner's verdict at the start of the line.
    static const QRegularExpression runner(
        QStringLiteral(R"(^\s*(?:FAILED|FAIL|ERROR|FATAL|PANIC|npm ERR!)\b)"));
    // A crash as the shell reports it, alone on its line or after the shell's name and the process id.
    static const QRegularExpression crash(QStringLiteral(
        R"(^\s*(?:[\w./+-]+:\s+(?:line \d+:\s+)?)?(?:\d+\s+)?)"
        R"((?:Segmentation fault|Bus error|Illegal instruction|Floating point exception|Aborted|Killed))"
        R"((?:\s+\(core dumped\))?(?:\s+\S*[/.]\S*)?\s*$)"));
    // The system's error after a program's name and what it worked on, ending the line, or the linker's.
    static const QRegularExpression system(QStringLiteral(
        R"(^\s*[a-z0-9_./~@+-][^\s:]*:(?:.*:)?\s+(?:(?:undefined reference to|multiple definition of)\s+\S.*)"
        R"(|(?:Permission denied|No such file or directory|Operation not permitted|Connection refused)"
        R"(|Connection timed out|Connection reset by peer|Is a directory|Not a directory|Directory not empty)"
        R"(|File exists|command not found|No space left on device|Read-only file system|Too many open files)"
        R"(|Address already in use|Cannot allocate memory|Broken pipe|Network is unreachable|No route to host)"
        R"()(?:\s*\([^)\n]*\))?[.!]?)\s*$)"));
    // curl's numbered error, a JVM's uncaught exception.
    static const QRegularExpression other(QStringLiteral(
        R"(^\s*curl:\s+\(\d+\)\s+\S|^\s*Exception in thread "[^"\n]*"\s+(?:[\w$]+\.)*[\w$]*(?:Exception|Error)\b)"));
    for (const QRegularExpression *pattern : {&message, &verdict, &runner, &crash, &system, &other}) {
        if (pattern->match(line).hasMatch())
            return true;
    }
    return false;
}

// A Python traceback is listed by the exception it ends with: the first line after its header that is not
// indented (its frames are). Empty when the text ends first (a cut traceback: its header is listed).
std::pair<qsizetype, qsizetype> tracebackEnd(const QString &text, qsizetype after)
{
    for (qsizetype start = after; start < text.size();) {
        qsizetype end = text.indexOf(QLatin1Char('\n'), start);
        if (end < 0)
            end = text.size();
        if (end > start && !text.at(start).isSpace())
            return {start, end};
        start = end + 1;
    }
    return {-1, -1};
}

QString excerptAround(const QString &text, qsizetype at, qsizetype length)
{
    constexpr qsizetype Context = 160;
    const qsizetype start =
        std::max<qsizetype>(0, text.lastIndexOf(QLatin1Char('\n'), std::max<qsizetype>(0, at - Context)));
    qsizetype end = text.indexOf(QLatin1Char('\n'), std::min(text.size(), at + length + Context));
    if (end < 0)
        end = text.size();
    return text.mid(start, end - start).trimmed();
}

// Error lines first, they matter most (issue 16: 70 paths of a grep left no room for the error it was
// about), then paths, identifiers and numbers: the order of the list, whose first three the chat's row names.
// Indexed by int(Kind), all four kinds.
constexpr DroppedDetail::Kind kShareOrder[] = {DroppedDetail::Kind::Error, DroppedDetail::Kind::Path,
                                               DroppedDetail::Kind::Identifier, DroppedDetail::Kind::Number};
constexpr int KindCount = std::size(kShareOrder);

// At most limit of the candidates, each kind in turn taking one more while it has any: every kind gets an
// equal share (limit / 4, the rest to the kinds first in kShareOrder), and a share one kind leaves unused
// goes to the others. Each kind keeps its order of first occurrence.
QList<DroppedDetail> shareOut(const QList<DroppedDetail> (&candidates)[KindCount], int limit)
{
    qsizetype taken[KindCount] = {};
    for (qsizetype total = 0, before = -1; total < limit && total != before;) {
        before = total;
        for (DroppedDetail::Kind kind : kShareOrder) {
            if (total < limit && taken[int(kind)] < candidates[int(kind)].size()) {
                ++taken[int(kind)];
                ++total;
            }
        }
    }
    QList<DroppedDetail> result;
    for (DroppedDetail::Kind kind : kShareOrder)
        result.append(candidates[int(kind)].first(taken[int(kind)]));
    return result;
}

// A summary names a file of the project by its path in the project ("src/server.cpp" for
// /home/dev/project/src/server.cpp): an absolute or home path whose last two parts or more the summary
// keeps is kept.
bool keptByItsEnd(const QString &path, const QString &kept)
{
    if (!path.startsWith(QLatin1Char('/')) && !path.startsWith(QLatin1Char('~')))
        return false;
    const QStringView trimmed = QStringView(path).chopped(path.endsWith(QLatin1Char('/')) ? 1 : 0);
    for (qsizetype slash = trimmed.indexOf(QLatin1Char('/'), 1); slash >= 0;
         slash = trimmed.indexOf(QLatin1Char('/'), slash + 1)) {
        const QStringView end = trimmed.sliced(slash + 1);
        if (!end.contains(QLatin1Char('/')))
            return false; // one part, a file name alone, says too little
        if (kept.contains(end))
            return true;
    }
    return false;
}

} // namespace

QList<DroppedDetail> find(const MessageList &compacted, const QString &kept, int limit)
{
    // Text that is no JSON but carries "\n" as two characters (escaped output): read them as line breaks.
    // Rendered JSON is decoded already, and its spans must keep their offsets.
    QList<Source> sources = texts(compacted);
    QList<Spans> framing;
    for (Source &source : sources) {
        if (source.framing.isEmpty())
            source.text.replace(QStringLiteral("\\n"), QStringLiteral("\n"));
        framing.append(framingSpans(source));
    }

    // Relative paths and file names, absolute ones with two parts or more ("/compact" is a command) and home
    // paths; a web address gives none.
    static const QRegularExpression path(QStringLiteral(
        R"((?<![\w/.~:-])(?:~/(?:[\w.-]+/)*|/(?:[\w.-]+/)+)(?:[\w.-]*[\w-])?|)"
        R"((?<![\w/.-])(?:[\w.-]+/)+(?:[\w.-]*[\w-])?|(?<![\w/.-])[\w-]+\.(?:cpp|h|hpp|c|cc|py|js|ts|go|rs|java|kt|md|json|txt|yaml|yml|toml|cmake|sh|qml|ui|xml|html|css)\b)"));
    // Qualified names, camelCase, PascalCase and snake_case; CONSTANT_CASE (a sentence's capitalised word and
    // an acronym are none), errno and signal names, UUIDs, commit hashes (hex with a digit and a letter: no
    // English word) and ticket keys (ABC-123, not a standard's name such as UTF-8 or SHA-256).
    static const QRegularExpression identifier(
        QStringLiteral(
            R"(\b(?:[A-Za-z_]\w*::)+[A-Za-z_~]\w*\b|\b[a-z]+(?:[A-Z][a-z0-9]*)+\b|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b)"
            R"(|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|\b(?:%1)\b)"
            R"(|\bSIG(?:SEGV|ABRT|KILL|TERM|INT|HUP|PIPE|BUS|FPE|ILL|QUIT|USR1|USR2|CHLD|ALRM|TRAP)\b)"
            R"(|\b[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b)"
            R"(|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b)"
            R"(|(?<![\w./-])(?!(?:UTF|UCS|ISO|IEC|SHA|MD|RFC|IEEE|ECMA|AES|RSA|TLS|SSL|HTTP|IPV|CP|WIN|GPL|LGPL)"
            R"(|AGPL|BSD|PEP|COVID|X)-)[A-Z][A-Z0-9]+-[1-9]\d{0,5}\b(?![-.]\d))")
            .arg(errnoNames()));
    // Dates and versions whole (2026-12-20, 2026-12-20T10:15, v1.2.3-rc.1, 192.168.1.10), then plain numbers
    // (15904, 1,234.5, 20.12.2026) and ranges (10000-20000); a sentence's full stop is not part of one.
    static const QRegularExpression number(
        QStringLiteral(R"((?<![\w.\-/])(?:\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?)?)"
                       R"(|v?\d+(?:\.\d+){2,}(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?)"
                       R"(|\d+(?:[.,]\d+)*(?:-\d+(?:[.,]\d+)*)?)(?![\w\-/]|[.,]\d))"));

    // Each kind's candidates, in the order of first occurrence; no kind needs more than limit of them.
    QList<DroppedDetail> candidates[KindCount];
    QList<Spans> paths(sources.size()); // where the paths are, listed or not: a part of one is no detail
    QList<Spans> webAddresses(sources.size()); // in order; a path inside one is none
    QSet<QString> seen; // by text with its white space simplified: no detail is listed twice
    auto isFull = [&](DroppedDetail::Kind kind) { return candidates[int(kind)].size() >= limit; };
    auto add = [&](DroppedDetail::Kind kind, const QString &text, const QString &excerpt,
                   qsizetype minLength) {
        const QString key = text.simplified();
        if (isFull(kind) || text.size() < minLength || seen.contains(key) || kept.contains(text))
            return;
        if (kind == DroppedDetail::Kind::Path && keptByItsEnd(text, kept))
            return;
        // "[1/2] Building" and 2026/12/06 name no file.
        static const QRegularExpression letter(QStringLiteral("[A-Za-z]"));
        if (kind == DroppedDetail::Kind::Path && !text.contains(letter))
            return;
        seen.insert(key);
        candidates[int(kind)].append(DroppedDetail{kind, text, excerpt});
    };
    auto collect = [&](DroppedDetail::Kind kind, const QRegularExpression &pattern, qsizetype minLength) {
        for (qsizetype i = 0; i < sources.size(); ++i) {
            const QString &source = sources.at(i).text;
            QRegularExpressionMatchIterator it = pattern.globalMatch(source);
            while (it.hasNext()) {
                // Paths are scanned to the end: an identifier or number inside any of them is no detail.
                if (kind != DroppedDetail::Kind::Path && isFull(kind))
                    return;
                const QRegularExpressionMatch match = it.next();
                const qsizetype start = match.capturedStart(0);
                const qsizetype end = match.capturedEnd(0);
                if (overlaps(framing.at(i), start, end)) {
                    continue;
                } else if (kind == DroppedDetail::Kind::Path) {
                    if (overlaps(webAddresses.at(i), start, end))
                        continue;
                    paths[i].append({start, end});
                } else if (overlaps(paths.at(i), start, end)) {
                    // A part of a path ("LastTest" of build/Testing/LastTest.log) is that path again.
                    continue;
                }
                add(kind, source.mid(start, end - start).trimmed(),
                    excerptAround(source, match.capturedStart(0), match.capturedLength(0)), minLength);
            }
        }
    };
    // Error messages: what a tool reported as its error, and lines that look like error output; never a
    // sentence that merely names an error. A line of a read file or of tool JSON is taken without its
    // line:hash| prefix or key.
    auto collectErrors = [&](qsizetype minLength) {
        for (qsizetype i = 0; i < sources.size(); ++i) {
            for (const QString &error : sources.at(i).errors) {
                if (isFull(DroppedDetail::Kind::Error))
                    return;
                add(DroppedDetail::Kind::Error, error, error, minLength);
            }
            const QString &source = sources.at(i).text;
            const Spans &spans = framing.at(i); // sorted by start; lines only move forward
            qsizetype firstSpan = 0;
            for (qsizetype lineStart = 0; lineStart < source.size();) {
                if (isFull(DroppedDetail::Kind::Error))
                    return;
                qsizetype lineEnd = source.indexOf(QLatin1Char('\n'), lineStart);
                if (lineEnd < 0)
                    lineEnd = source.size();
                while (firstSpan < spans.size() && spans.at(firstSpan).second <= lineStart)
                    ++firstSpan;
                qsizetype start = lineStart;
                for (qsizetype s = firstSpan; s < spans.size() && spans.at(s).first <= start; ++s) {
                    if (spans.at(s).second > start)
                        start = std::min(spans.at(s).second, lineEnd);
                }
                const QString line = source.mid(start, lineEnd - start);
                static const QRegularExpression traceback(
                    QStringLiteral(R"(^\s*Traceback \(most recent call last\):\s*$)"));
                if (traceback.match(line).hasMatch()) {
                    if (const auto [lastStart, lastEnd] = tracebackEnd(source, lineEnd + 1); lastStart >= 0) {
                        // Its frames go with it, to pin; a long one keeps its header and its last lines.
                        constexpr qsizetype MaxExcerpt = 1500;
                        QString excerpt = source.mid(start, lastEnd - start).trimmed();
                        if (excerpt.size() > MaxExcerpt)
                            excerpt = line.trimmed() + QStringLiteral("\n…\n") +
                                      excerpt.right(MaxExcerpt).section(QLatin1Char('\n'), 1);
                        add(DroppedDetail::Kind::Error, source.mid(lastStart, lastEnd - lastStart).trimmed(),
                            excerpt, minLength);
                        lineStart = lastEnd + 1;
                        continue;
                    }
                }
                if (looksLikeErrorOutput(line)) {
                    const QString text = line.trimmed();
                    add(DroppedDetail::Kind::Error, text, text, minLength);
                }
                lineStart = lineEnd + 1;
            }
        }
    };
    // A web address is no path, and no part of one ("beginners_guide" of .../beginners_guide.html,
    // "8080/health" of http://localhost:8080/health) is a path, an identifier or a number of its own.
    static const QRegularExpression webAddress(
        QStringLiteral(R"(\b[A-Za-z][A-Za-z0-9+.-]*://[^\s<>"'`)\]]+)"));
    for (qsizetype i = 0; i < sources.size(); ++i) {
        QRegularExpressionMatchIterator it = webAddress.globalMatch(sources.at(i).text);
        while (it.hasNext()) {
            const QRegularExpressionMatch match = it.next();
            webAddresses[i].append({match.capturedStart(0), match.capturedEnd(0)});
        }
    }
    collect(DroppedDetail::Kind::Path, path, 3);
    for (qsizetype i = 0; i < sources.size(); ++i) {
        paths[i].append(webAddresses.at(i));
        std::sort(paths[i].begin(), paths[i].end()); // overlaps() takes them in order
    }
    collectErrors(8);
    collect(DroppedDetail::Kind::Identifier, identifier, 4);
    collect(DroppedDetail::Kind::Number, number, 3);
    return shareOut(candidates, limit);
}

} // namespace keen::DroppedDetails
