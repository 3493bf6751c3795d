#include "tools/bashcommandclassifier.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace keen {

namespace {

constexpr int MaxDepth = 8;

BashCommandClassifier::Verdict dangerous(const QString &reason)
{
    return {true, reason};
}

// One simple command: its words with quotes removed, and where its output redirections point.
struct Segment
{
    QStringList words;
    QStringList outputTargets;
};

struct Parsed
{
    QList<Segment> segments;
    QStringList nested; // bodies of $(...), `...`, (...) and <(...) to check on their own
};

// Index of the parenthesis closing the one at open, honouring quotes and nesting; -1 when unterminated.
int findClosingParen(const QString &s, int open)
{
    int depth = 0;
    bool single = false;
    bool dbl = false;
    for (int i = open; i < s.size(); ++i) {
        const QChar c = s.at(i);
        if (single) {
            if (c == QLatin1Char('\''))
                single = false;
            continue;
        }
        if (c == QLatin1Char('\\')) {
            ++i;
            continue;
        }
        if (c == QLatin1Char('"')) {
            dbl = !dbl;
        } else if (dbl) {
            continue;
        } else if (c == QLatin1Char('\'')) {
            single = true;
        } else if (c == QLatin1Char('(')) {
            ++depth;
        } else if (c == QLatin1Char(')')) {
            if (--depth == 0)
                return i;
        }
    }
    return -1;
}

int findClosingBrace(const QString &s, int open)
{
    int depth = 0;
    for (int i = open; i < s.size(); ++i) {
        if (s.at(i) == QLatin1Char('{'))
            ++depth;
        else if (s.at(i) == QLatin1Char('}') && --depth == 0)
            return i;
    }
    return -1;
}

bool isDigits(const QString &word)
{
    if (word.isEmpty())
        return false;
    for (const QChar c : word) {
        if (!c.isDigit())
            return false;
    }
    return true;
}

class Parser
{
public:
    explicit Parser(const QString &text)
        : m_s(text)
    {}

    Parsed parse()
    {
        const int n = int(m_s.size());
        for (int i = 0; i < n; ++i) {
            const QChar c = m_s.at(i);
            const QChar next = i + 1 < n ? m_s.at(i + 1) : QChar();

            if (c == QLatin1Char('\\')) {
                if (next == QLatin1Char('\n')) { // line continuation
                    ++i;
                    continue;
                }
                if (i + 1 < n)
                    appendChar(next);
                ++i;
                continue;
            }
            if (c == QLatin1Char('\'')) {
                const int end = int(m_s.indexOf(QLatin1Char('\''), i + 1));
                const int stop = end < 0 ? n : end;
                appendText(m_s.mid(i + 1, stop - i - 1));
                i = stop;
                continue;
            }
            if (c == QLatin1Char('"')) {
                i = parseDoubleQuoted(i + 1);
                continue;
            }
            if (c == QLatin1Char('$') && (next == QLatin1Char('(') || next == QLatin1Char('{'))) {
                i = parseDollar(i);
                continue;
            }
            if (c == QLatin1Char('`')) {
                i = parseBacktick(i);
                continue;
            }
            if (c == QLatin1Char('#') && !m_wordStarted) {
                while (i + 1 < n && m_s.at(i + 1) != QLatin1Char('\n'))
                    ++i;
                continue;
            }
            if (c == QLatin1Char(' ') || c == QLatin1Char('\t') || c == QLatin1Char('\r')) {
                endWord();
                continue;
            }
            if (c == QLatin1Char('\n')) {
                endSegment();
                i = skipHeredocBodies(i);
                continue;
            }
            if (c == QLatin1Char(';')) {
                endSegment();
                continue;
            }
            if (c == QLatin1Char('|')) {
                endSegment();
                if (next == QLatin1Char('|') || next == QLatin1Char('&'))
                    ++i;
                continue;
            }
            if (c == QLatin1Char('&')) {
                if (next == QLatin1Char('>')) { // &> and &>> redirect both streams
                    endWord();
                    i = parseRedirect(i + 1);
                    continue;
                }
                endSegment();
                if (next == QLatin1Char('&'))
                    ++i;
                continue;
            }
            if ((c == QLatin1Char('<') || c == QLatin1Char('>')) && next == QLatin1Char('(')) {
                const int close = findClosingParen(m_s, i + 1);
                const int stop = close < 0 ? n : close;
                m_parsed.nested.append(m_s.mid(i + 2, stop - i - 2));
                appendText(QStringLiteral("/dev/fd/63"));
                i = stop;
                continue;
            }
            if (c == QLatin1Char('<') || c == QLatin1Char('>')) {
                // "2>file", "2>&1": a leading file descriptor number belongs to the operator.
                if (isDigits(m_word) || m_word.isEmpty()) {
                    m_word.clear();
                    m_wordStarted = false;
                } else {
                    endWord();
                }
                i = parseRedirect(i);
                continue;
            }
            if (c == QLatin1Char('(')) {
                if (m_word.isEmpty() && !m_wordStarted && m_current.words.isEmpty()) {
                    const int close = findClosingParen(m_s, i);
                    const int stop = close < 0 ? n : close;
                    m_parsed.nested.append(m_s.mid(i + 1, stop - i - 1));
                    i = stop;
                } else {
                    endWord(); // "f()" of a function definition
                }
                continue;
            }
            if (c == QLatin1Char(')')) {
                endWord();
                continue;
            }
            appendChar(c);
        }
        endSegment();
        return m_parsed;
    }

private:
    void appendChar(QChar c)
    {
        m_word.append(c);
        m_wordStarted = true;
    }
    void appendText(const QString &text)
    {
        m_word.append(text);
        m_wordStarted = true;
    }

    void endWord()
    {
        if (!m_wordStarted)
            return;
        switch (m_pending) {
        case Pending::None:
            m_current.words.append(m_word);
            break;
        case Pending::Output:
            m_current.outputTargets.append(m_word);
            break;
        case Pending::Input:
            break;
        case Pending::Heredoc:
            m_heredocs.append({m_word, m_heredocStripTabs});
            break;
        }
        m_pending = Pending::None;
        m_word.clear();
        m_wordStarted = false;
    }

    void endSegment()
    {
        endWord();
        if (!m_current.words.isEmpty() || !m_current.outputTargets.isEmpty())
            m_parsed.segments.append(m_current);
        m_current = Segment();
        m_pending = Pending::None;
    }

    int parseDoubleQuoted(int i)
    {
        m_wordStarted = true;
        const int n = int(m_s.size());
        for (; i < n; ++i) {
            const QChar c = m_s.at(i);
            if (c == QLatin1Char('"'))
                return i;
            if (c == QLatin1Char('\\') && i + 1 < n) {
                m_word.append(m_s.at(++i));
                continue;
            }
            if (c == QLatin1Char('$') && i + 1 < n &&
                (m_s.at(i + 1) == QLatin1Char('(') || m_s.at(i + 1) == QLatin1Char('{'))) {
                i = parseDollar(i);
                continue;
            }
            if (c == QLatin1Char('`')) {
                i = parseBacktick(i);
                continue;
            }
            m_word.append(c);
        }
        return n;
    }

    // $(...), $((...)) and ${...}. Substitutions are checked separately and stand in the word as a marker.
    int parseDollar(int i)
    {
        const int n = int(m_s.size());
        if (m_s.at(i + 1) == QLatin1Char('{')) {
            const int close = findClosingBrace(m_s, i + 1);
            const int stop = close < 0 ? n - 1 : close;
            appendText(m_s.mid(i, stop - i + 1));
            return stop;
        }
        const int close = findClosingParen(m_s, i + 1);
        const int stop = close < 0 ? n : close;
        m_parsed.nested.append(m_s.mid(i + 2, stop - i - 2));
        appendText(QStringLiteral("$SUBST"));
        return stop;
    }

    int parseBacktick(int i)
    {
        const int n = int(m_s.size());
        int j = i + 1;
        QString inner;
        for (; j < n; ++j) {
            const QChar c = m_s.at(j);
            if (c == QLatin1Char('\\') && j + 1 < n) {
                inner.append(m_s.at(++j));
                continue;
            }
            if (c == QLatin1Char('`'))
                break;
            inner.append(c);
        }
        m_parsed.nested.append(inner);
        appendText(QStringLiteral("$SUBST"));
        return j;
    }

    // At a '<' or '>': consumes the operator and decides what the next word is.
    int parseRedirect(int i)
    {
        const int n = int(m_s.size());
        const QChar c = m_s.at(i);
        Pending kind = c == QLatin1Char('>') ? Pending::Output : Pending::Input;
        ++i;
        if (c == QLatin1Char('<') && i < n && m_s.at(i) == QLatin1Char('<')) {
            ++i;
            if (i < n && m_s.at(i) == QLatin1Char('<')) { // here-string: the next word is data
                m_pending = Pending::Input;
                return i;
            }
            m_heredocStripTabs = i < n && m_s.at(i) == QLatin1Char('-');
            if (m_heredocStripTabs)
                ++i;
            m_pending = Pending::Heredoc;
            return i - 1;
        }
        if (i < n && (m_s.at(i) == QLatin1Char('>') || m_s.at(i) == QLatin1Char('|') ||
                      (c == QLatin1Char('<') && m_s.at(i) == QLatin1Char('>'))))
            ++i;
        if (i < n && m_s.at(i) == QLatin1Char('&')) {
            // Duplicating a descriptor ("2>&1", ">&-") names no file.
            int j = i + 1;
            while (j < n && (m_s.at(j).isDigit() || m_s.at(j) == QLatin1Char('-')))
                ++j;
            if (j > i + 1)
                return j - 1;
            ++i;
        }
        m_pending = kind;
        return i - 1;
    }

    int skipHeredocBodies(int i)
    {
        const int n = int(m_s.size());
        while (!m_heredocs.isEmpty()) {
            const auto [delimiter, stripTabs] = m_heredocs.takeFirst();
            int lineStart = i + 1;
            while (lineStart < n) {
                int lineEnd = int(m_s.indexOf(QLatin1Char('\n'), lineStart));
                if (lineEnd < 0)
                    lineEnd = n;
                QString line = m_s.mid(lineStart, lineEnd - lineStart);
                if (stripTabs)
                    line = line.trimmed();
                i = lineEnd;
                lineStart = lineEnd + 1;
                if (line == delimiter)
                    break;
            }
        }
        return i;
    }

    enum class Pending { None, Output, Input, Heredoc };

    const QString &m_s;
    Parsed m_parsed;
    Segment m_current;
    QString m_word;
    bool m_wordStarted = false;
    Pending m_pending = Pending::None;
    bool m_heredocStripTabs = false;
    QList<std::pair<QString, bool>> m_heredocs;
};

bool isAssignment(const QString &word)
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*(\\[[^\\]]*\\])?\\+?="));
    return pattern.match(word).hasMatch();
}

bool isShortCluster(const QString &word)
{
    return word.size() > 1 && word.startsWith(QLatin1Char('-')) && !word.startsWith(QLatin1String("--"));
}

bool clusterHas(const QString &word, QChar flag)
{
    return isShortCluster(word) && word.mid(1).contains(flag);
}

// The first word after options; values of the options listed in withValue are skipped.
int firstOperand(const QStringList &words, int from, const QSet<QString> &withValue = {})
{
    for (int i = from; i < words.size(); ++i) {
        const QString &w = words.at(i);
        if (w == QLatin1String("--"))
            return i + 1 < words.size() ? i + 1 : -1;
        if (!w.startsWith(QLatin1Char('-')) || w == QLatin1String("-"))
            return i;
        if (withValue.contains(w))
            ++i;
    }
    return -1;
}

QString subcommand(const QStringList &words, int from, const QSet<QString> &withValue = {})
{
    const int index = firstOperand(words, from, withValue);
    return index < 0 ? QString() : words.at(index);
}

bool isSystemTarget(const QString &target)
{
    static const QStringList harmless = {QStringLiteral("/dev/null"), QStringLiteral("/dev/stdout"),
                                         QStringLiteral("/dev/stderr"), QStringLiteral("/dev/tty")};
    if (harmless.contains(target) || target.startsWith(QLatin1String("/dev/fd/")))
        return false;
    static const QStringList prefixes = {
        QStringLiteral("/etc/"), QStringLiteral("/usr/"),  QStringLiteral("/bin/"), QStringLiteral("/sbin/"),
        QStringLiteral("/lib"),  QStringLiteral("/boot/"), QStringLiteral("/sys/"), QStringLiteral("/proc/"),
        QStringLiteral("/dev/"), QStringLiteral("/root/")};
    for (const QString &prefix : prefixes) {
        if (target.startsWith(prefix))
            return true;
    }
    return false;
}

QString commandName(const QString &word)
{
    return QFileInfo(word).fileName();
}

BashCommandClassifier::Verdict checkRawText(const QString &text)
{
    static const QRegularExpression sensitive(
        QStringLiteral("(^|[^A-Za-z0-9_.])(\\.ssh|\\.aws|\\.gnupg)(/|\\b)|\\.netrc\\b|\\.git-credentials\\b|"
                       "/etc/(shadow|gshadow|sudoers)|/proc/"));
    if (const auto match = sensitive.match(text); match.hasMatch())
        return dangerous(
            BashCommandClassifier::tr("touches a sensitive path (%1)").arg(match.captured(0).trimmed()));

    static const QRegularExpression secretVariable(
        QStringLiteral("\\$\\{?[A-Za-z0-9_]*(AWS|SECRET|TOKEN|PASSWORD|PASSWD|PRIVATE|API_?KEY|CREDENTIAL)"
                       "[A-Za-z0-9_]*"),
        QRegularExpression::CaseInsensitiveOption);
    if (const auto match = secretVariable.match(text); match.hasMatch())
        return dangerous(
            BashCommandClassifier::tr("reads a secret environment variable (%1)").arg(match.captured(0)));
    // ${!name}: reads the variable whose name another one holds, so no name above can be seen.
    if (text.contains(QLatin1String("${!")))
        return dangerous(BashCommandClassifier::tr("reads a variable whose name is computed when it runs"));
    return {};
}

const QSet<QString> &alwaysDangerous()
{
    static const QSet<QString> names = {
        QStringLiteral("rm"),       QStringLiteral("rmdir"),  QStringLiteral("shred"),
        QStringLiteral("dd"),       QStringLiteral("unlink"), QStringLiteral("install"),
        QStringLiteral("chown"),    QStringLiteral("chgrp"),  QStringLiteral("sudo"),
        QStringLiteral("su"),       QStringLiteral("doas"),   QStringLiteral("pkexec"),
        QStringLiteral("chroot"),   QStringLiteral("kill"),   QStringLiteral("killall"),
        QStringLiteral("pkill"),    QStringLiteral("xkill"),  QStringLiteral("shutdown"),
        QStringLiteral("reboot"),   QStringLiteral("halt"),   QStringLiteral("poweroff"),
        QStringLiteral("eval"),     QStringLiteral("fdisk"),  QStringLiteral("parted"),
        QStringLiteral("wipefs"),   QStringLiteral("mkswap"), QStringLiteral("printenv"),
        QStringLiteral("truncate"),
    };
    return names;
}

bool isInterpreterRunningInlineCode(const QString &name, const QStringList &words, QString *what)
{
    static const QRegularExpression python(QStringLiteral("^(python[0-9.]*|pypy[0-9.]*)$"));
    static const QSet<QString> shells = {
        QStringLiteral("bash"), QStringLiteral("sh"),   QStringLiteral("zsh"),
        QStringLiteral("dash"), QStringLiteral("ksh"),  QStringLiteral("fish"),
        QStringLiteral("csh"),  QStringLiteral("tcsh"), QStringLiteral("busybox")};
    const auto scanOptions = [&](const QList<QChar> &flags, const QStringList &longFlags) {
        for (int i = 1; i < words.size(); ++i) {
            const QString &w = words.at(i);
            if (!w.startsWith(QLatin1Char('-')) || w == QLatin1String("--"))
                return false; // a script file: its contents are not visible here, like any program
            if (longFlags.contains(w.section(QLatin1Char('='), 0, 0)))
                return true;
            for (const QChar flag : flags) {
                if (clusterHas(w, flag))
                    return true;
            }
        }
        return false;
    };

    if (python.match(name).hasMatch()) {
        *what = BashCommandClassifier::tr("%1 -c runs inline code").arg(name);
        return scanOptions({QLatin1Char('c')}, {});
    }
    if (shells.contains(name)) {
        *what = BashCommandClassifier::tr("%1 -c runs a nested shell command").arg(name);
        if (scanOptions({QLatin1Char('c')}, {}))
            return true;
        // No script file: the shell runs whatever arrives on stdin ("curl ... | sh").
        if (firstOperand(words, 1) < 0) {
            *what = BashCommandClassifier::tr("%1 runs commands read from its input").arg(name);
            return true;
        }
        return false;
    }
    if (name == QLatin1String("perl") || name == QLatin1String("ruby")) {
        *what = BashCommandClassifier::tr("%1 -e runs inline code").arg(name);
        return scanOptions({QLatin1Char('e'), QLatin1Char('E')}, {});
    }
    if (name == QLatin1String("node") || name == QLatin1String("nodejs") || name == QLatin1String("deno") ||
        name == QLatin1String("bun")) {
        *what = BashCommandClassifier::tr("%1 evaluates inline code").arg(name);
        if (words.size() > 1 && words.at(1) == QLatin1String("eval"))
            return true;
        return scanOptions({QLatin1Char('e'), QLatin1Char('p')},
                           {QStringLiteral("--eval"), QStringLiteral("--print")});
    }
    if (name == QLatin1String("php")) {
        *what = BashCommandClassifier::tr("php -r runs inline code");
        return scanOptions({QLatin1Char('r')}, {});
    }
    if (name == QLatin1String("lua") || name == QLatin1String("luajit")) {
        *what = BashCommandClassifier::tr("%1 -e runs inline code").arg(name);
        return scanOptions({QLatin1Char('e')}, {});
    }
    if (name == QLatin1String("awk") || name == QLatin1String("gawk") || name == QLatin1String("mawk")) {
        *what = BashCommandClassifier::tr("awk program calls system()");
        for (const QString &w : words) {
            if (w.contains(QLatin1String("system(")) || w.contains(QLatin1String("| getline")))
                return true;
        }
    }
    return false;
}

} // namespace

BashCommandClassifier::Verdict BashCommandClassifier::classify(const QString &command)
{
    if (const Verdict raw = checkRawText(command); raw.dangerous)
        return raw;
    return classifyText(command, 0);
}

bool BashCommandClassifier::isDangerous(const QString &command, QString *reason)
{
    const Verdict verdict = classify(command);
    if (reason)
        *reason = verdict.reason;
    return verdict.dangerous;
}

BashCommandClassifier::Verdict BashCommandClassifier::classifyText(const QString &command, int depth)
{
    if (depth > MaxDepth)
        return dangerous(BashCommandClassifier::tr("the command is nested too deeply to check"));

    const Parsed parsed = Parser(command).parse();
    static const QSet<QString> keywords = {
        QStringLiteral("{"),    QStringLiteral("}"),    QStringLiteral("!"),      QStringLiteral("if"),
        QStringLiteral("then"), QStringLiteral("else"), QStringLiteral("elif"),   QStringLiteral("fi"),
        QStringLiteral("do"),   QStringLiteral("done"), QStringLiteral("while"),  QStringLiteral("until"),
        QStringLiteral("time"), QStringLiteral("esac"), QStringLiteral("coproc"),
    };
    for (const Segment &segment : parsed.segments) {
        for (const QString &target : segment.outputTargets) {
            if (isSystemTarget(target))
                return dangerous(BashCommandClassifier::tr("writes to a system file (%1)").arg(target));
        }
        QStringList words = segment.words;
        while (!words.isEmpty() && (keywords.contains(words.first()) || isAssignment(words.first())))
            words.removeFirst();
        if (const Verdict verdict = classifyWords(words, depth); verdict.dangerous)
            return verdict;
    }
    for (const QString &inner : parsed.nested) {
        if (const Verdict verdict = classifyText(inner, depth + 1); verdict.dangerous)
            return verdict;
    }
    return {};
}

BashCommandClassifier::Verdict BashCommandClassifier::classifyWords(const QStringList &words, int depth)
{
    if (words.isEmpty())
        return {};
    if (depth > MaxDepth)
        return dangerous(BashCommandClassifier::tr("the command is nested too deeply to check"));

    const QString name = commandName(words.first());
    const auto rest = [&](int from) { return from < words.size() ? words.mid(from) : QStringList(); };

    // "x=rm; $x -rf dir", "$(echo rm) -rf dir": what runs is only known when it runs.
    if (words.first().contains(QLatin1Char('$')))
        return dangerous(
            BashCommandClassifier::tr("the command to run is computed when it runs (%1)").arg(words.first()));

    if (alwaysDangerous().contains(name))
        return dangerous(BashCommandClassifier::tr("%1 can destroy data or change the system").arg(name));
    if (name.startsWith(QLatin1String("mkfs")))
        return dangerous(BashCommandClassifier::tr("%1 formats a file system").arg(name));

    // Wrappers that run another command: judge the wrapped one.
    static const QSet<QString> plainWrappers = {QStringLiteral("command"), QStringLiteral("builtin"),
                                                QStringLiteral("exec"),    QStringLiteral("nohup"),
                                                QStringLiteral("setsid"),  QStringLiteral("time"),
                                                QStringLiteral("unbuffer")};
    if (plainWrappers.contains(name)) {
        const int index = firstOperand(words, 1);
        return index < 0 ? Verdict() : classifyWords(rest(index), depth + 1);
    }
    if (name == QLatin1String("nice") || name == QLatin1String("ionice") || name == QLatin1String("stdbuf") ||
        name == QLatin1String("timeout")) {
        const int index = firstOperand(
            words, 1,
            {QStringLiteral("-n"), QStringLiteral("-c"), QStringLiteral("-s"), QStringLiteral("-k")});
        // timeout's first operand is the duration.
        const int commandIndex = name == QLatin1String("timeout") && index >= 0 ? index + 1 : index;
        return commandIndex < 0 ? Verdict() : classifyWords(rest(commandIndex), depth + 1);
    }
    if (name == QLatin1String("xargs")) {
        static const QSet<QString> withValue = {
            QStringLiteral("-I"), QStringLiteral("-n"), QStringLiteral("-P"), QStringLiteral("-L"),
            QStringLiteral("-d"), QStringLiteral("-E"), QStringLiteral("-s"), QStringLiteral("-a")};
        const int index = firstOperand(words, 1, withValue);
        return index < 0 ? Verdict() : classifyWords(rest(index), depth + 1);
    }
    if (name == QLatin1String("env")) {
        int i = 1;
        for (; i < words.size(); ++i) {
            const QString &w = words.at(i);
            if (w == QLatin1String("-u") || w == QLatin1String("-C") || w == QLatin1String("--unset") ||
                w == QLatin1String("--chdir")) {
                ++i;
                continue;
            }
            if (w == QLatin1String("-S") || w.startsWith(QLatin1String("--split-string"))) {
                const QString script = w.contains(QLatin1Char('='))
                                           ? w.section(QLatin1Char('='), 1)
                                           : (i + 1 < words.size() ? words.at(i + 1) : QString());
                return classifyText(script, depth + 1);
            }
            if (w.startsWith(QLatin1Char('-')) || isAssignment(w))
                continue;
            break;
        }
        if (i >= words.size())
            return dangerous(
                BashCommandClassifier::tr("env prints every environment variable, secrets included"));
        return classifyWords(rest(i), depth + 1);
    }
    if ((name == QLatin1String("export") || name == QLatin1String("declare") ||
         name == QLatin1String("set")) &&
        (words.size() == 1 || words.at(1) == QLatin1String("-p") || words.at(1) == QLatin1String("-x")))
        return dangerous(
            BashCommandClassifier::tr("%1 prints environment variables, secrets included").arg(name));

    static const QRegularExpression python(QStringLiteral("^python[0-9.]*$"));
    if (python.match(name).hasMatch()) {
        // "python -m pip uninstall x" is pip.
        const int module = int(words.indexOf(QStringLiteral("-m")));
        if (module > 0 && module + 1 < words.size())
            return classifyWords(rest(module + 1), depth + 1);
    }
    if (QString what; isInterpreterRunningInlineCode(name, words, &what))
        return dangerous(what);

    if (name == QLatin1String("git")) {
        static const QSet<QString> withValue = {QStringLiteral("-C"), QStringLiteral("-c"),
                                                QStringLiteral("--git-dir"), QStringLiteral("--work-tree"),
                                                QStringLiteral("--namespace")};
        static const QSet<QString> risky = {QStringLiteral("rm"),         QStringLiteral("clean"),
                                            QStringLiteral("push"),       QStringLiteral("reset"),
                                            QStringLiteral("rebase"),     QStringLiteral("merge"),
                                            QStringLiteral("cherry-pick")};
        const QString sub = subcommand(words, 1, withValue);
        // Discarding uncommitted work: checkout of paths (after "--" or ".", or forced), restore, and
        // dropping stashes.
        const int at = int(words.indexOf(sub));
        const QStringList after = at >= 0 ? words.mid(at + 1) : QStringList();
        const bool discards =
            sub == QLatin1String("restore") ||
            (sub == QLatin1String("checkout") &&
             (after.contains(QStringLiteral("--")) || after.contains(QStringLiteral(".")) ||
              after.contains(QStringLiteral("-f")) || after.contains(QStringLiteral("--force")))) ||
            (sub == QLatin1String("stash") && !after.isEmpty() &&
             (after.first() == QLatin1String("drop") || after.first() == QLatin1String("clear")));
        if (risky.contains(sub) || discards)
            return dangerous(
                BashCommandClassifier::tr("git %1 rewrites history, discards work or changes a remote")
                    .arg(sub));
        return {};
    }
    if (name == QLatin1String("docker") || name == QLatin1String("podman")) {
        static const QSet<QString> withValue = {QStringLiteral("-H"), QStringLiteral("--host"),
                                                QStringLiteral("--context"), QStringLiteral("-c"),
                                                QStringLiteral("--config")};
        const int index = firstOperand(words, 1, withValue);
        const QString sub = index < 0 ? QString() : words.at(index);
        if (sub == QLatin1String("rm") || sub == QLatin1String("rmi") || sub == QLatin1String("kill"))
            return dangerous(
                BashCommandClassifier::tr("%1 %2 removes or stops containers or images").arg(name, sub));
        static const QSet<QString> objects = {QStringLiteral("container"), QStringLiteral("image"),
                                              QStringLiteral("volume"),    QStringLiteral("network"),
                                              QStringLiteral("system"),    QStringLiteral("builder")};
        if (objects.contains(sub)) {
            const QString action = subcommand(words, index + 1);
            if (action == QLatin1String("rm") || action == QLatin1String("kill") ||
                action == QLatin1String("prune"))
                return dangerous(BashCommandClassifier::tr("%1 %2 %3 removes or stops containers or data")
                                     .arg(name, sub, action));
        }
        return {};
    }
    if (name == QLatin1String("kubectl")) {
        static const QSet<QString> withValue = {QStringLiteral("-n"),        QStringLiteral("--namespace"),
                                                QStringLiteral("--context"), QStringLiteral("--kubeconfig"),
                                                QStringLiteral("-s"),        QStringLiteral("--server"),
                                                QStringLiteral("--cluster"), QStringLiteral("--user")};
        const QString sub = subcommand(words, 1, withValue);
        static const QSet<QString> risky = {QStringLiteral("apply"), QStringLiteral("delete"),
                                            QStringLiteral("patch"), QStringLiteral("edit")};
        if (risky.contains(sub))
            return dangerous(BashCommandClassifier::tr("kubectl %1 changes a cluster").arg(sub));
        return {};
    }
    if (name == QLatin1String("systemctl")) {
        static const QSet<QString> risky = {QStringLiteral("stop"),    QStringLiteral("restart"),
                                            QStringLiteral("disable"), QStringLiteral("kill"),
                                            QStringLiteral("mask"),    QStringLiteral("isolate")};
        const QString sub = subcommand(words, 1);
        if (risky.contains(sub))
            return dangerous(BashCommandClassifier::tr("systemctl %1 changes running services").arg(sub));
        return {};
    }

    // Package removal.
    {
        const QString sub = subcommand(words, 1);
        static const QSet<QString> aptLike = {QStringLiteral("apt"), QStringLiteral("apt-get"),
                                              QStringLiteral("aptitude")};
        static const QSet<QString> yumLike = {QStringLiteral("yum"), QStringLiteral("dnf"),
                                              QStringLiteral("zypper")};
        bool removes = false;
        if (aptLike.contains(name))
            removes = sub == QLatin1String("remove") || sub == QLatin1String("purge") ||
                      sub == QLatin1String("autoremove");
        else if (yumLike.contains(name))
            removes = sub == QLatin1String("remove") || sub == QLatin1String("erase") ||
                      sub == QLatin1String("autoremove");
        else if (name == QLatin1String("pacman") || name == QLatin1String("yay"))
            removes = std::any_of(words.cbegin() + 1, words.cend(), [](const QString &w) {
                return (isShortCluster(w) && w.at(1) == QLatin1Char('R')) || w == QLatin1String("--remove");
            });
        else if (name == QLatin1String("brew"))
            removes = sub == QLatin1String("uninstall") || sub == QLatin1String("remove") ||
                      sub == QLatin1String("rm");
        else if (name.startsWith(QLatin1String("pip")) || name == QLatin1String("uv") ||
                 name == QLatin1String("gem") || name == QLatin1String("cargo") ||
                 name == QLatin1String("snap") || name == QLatin1String("flatpak"))
            removes = sub == QLatin1String("uninstall") || sub == QLatin1String("remove");
        else if (name == QLatin1String("npm") || name == QLatin1String("pnpm") ||
                 name == QLatin1String("yarn"))
            removes = sub == QLatin1String("uninstall") || sub == QLatin1String("remove") ||
                      sub == QLatin1String("rm") || sub == QLatin1String("r") || sub == QLatin1String("un") ||
                      sub == QLatin1String("unlink");
        if (removes)
            return dangerous(BashCommandClassifier::tr("%1 %2 removes packages").arg(name, sub));
    }

    if (name == QLatin1String("cp")) {
        for (const QString &w : rest(1)) {
            if (clusterHas(w, QLatin1Char('f')) || w == QLatin1String("--force") ||
                w == QLatin1String("--remove-destination"))
                return dangerous(BashCommandClassifier::tr("cp -f overwrites files without asking"));
        }
        return {};
    }
    if (name == QLatin1String("rsync")) {
        for (const QString &w : rest(1)) {
            if (w.startsWith(QLatin1String("--delete")) || w == QLatin1String("--force") ||
                w == QLatin1String("--remove-source-files"))
                return dangerous(BashCommandClassifier::tr("rsync %1 deletes files").arg(w));
        }
        return {};
    }
    if (name == QLatin1String("chmod")) {
        for (const QString &w : rest(1)) {
            if (clusterHas(w, QLatin1Char('R')) || w == QLatin1String("--recursive"))
                return dangerous(BashCommandClassifier::tr("chmod -R changes permissions of a whole tree"));
            if (w.contains(QLatin1String("777")) || w == QLatin1String("a+rwx"))
                return dangerous(BashCommandClassifier::tr("chmod 777 makes files writable by everyone"));
        }
        return {};
    }
    if (name == QLatin1String("find")) {
        for (int i = 1; i < words.size(); ++i) {
            const QString &w = words.at(i);
            if (w == QLatin1String("-delete"))
                return dangerous(BashCommandClassifier::tr("find -delete removes files"));
            if (w == QLatin1String("-exec") || w == QLatin1String("-execdir") || w == QLatin1String("-ok") ||
                w == QLatin1String("-okdir")) {
                QStringList inner;
                for (++i; i < words.size(); ++i) {
                    if (words.at(i) == QLatin1String(";") || words.at(i) == QLatin1String("+"))
                        break;
                    inner.append(words.at(i));
                }
                if (const Verdict verdict = classifyWords(inner, depth + 1); verdict.dangerous)
                    return verdict;
            }
        }
        return {};
    }
    if (name == QLatin1String("tee")) {
        for (const QString &w : rest(1)) {
            if (isSystemTarget(w))
                return dangerous(BashCommandClassifier::tr("writes to a system file (%1)").arg(w));
        }
    }
    return {};
}

} // namespace keen
