#include "chat/tooldisplay.h"

#include "conversation/toolcalltext.h"

#include <QCoreApplication>
#include <QLocale>

#include <algorithm>

namespace keen {

QString ToolDisplay::label(const QString &toolName)
{
    static const QHash<QString, const char *> labels{
        {QStringLiteral("read_file"), QT_TRANSLATE_NOOP("ToolDisplay", "Read")},
        {QStringLiteral("write_file"), QT_TRANSLATE_NOOP("ToolDisplay", "Write")},
        {QStringLiteral("edit_file"), QT_TRANSLATE_NOOP("ToolDisplay", "Edit")},
        {QStringLiteral("grep"), QT_TRANSLATE_NOOP("ToolDisplay", "Search")},
        {QStringLiteral("glob"), QT_TRANSLATE_NOOP("ToolDisplay", "Find")},
        {QStringLiteral("bash"), QT_TRANSLATE_NOOP("ToolDisplay", "Run")},
        {QStringLiteral("web_fetch"), QT_TRANSLATE_NOOP("ToolDisplay", "Fetch")},
        {QStringLiteral("call_mcp_tool"), QT_TRANSLATE_NOOP("ToolDisplay", "MCP")},
        {QStringLiteral("delegate_task"), QT_TRANSLATE_NOOP("ToolDisplay", "Delegate")},
        {QStringLiteral("ask_user"), QT_TRANSLATE_NOOP("ToolDisplay", "Ask")},
    };
    const auto it = labels.constFind(toolName);
    return it != labels.constEnd() ? ToolDisplay::tr(it.value()) : ToolCallText::label(toolName);
}

QString ToolDisplay::detail(const QString &toolName, const QJsonObject &input)
{
    return ToolCallText::detail(toolName, input);
}

QString ToolDisplay::metadata(const QString &toolName, const ToolResultFacts &result)
{
    if (!result.structured)
        return {};
    if (toolName == QLatin1String("read_file")) {
        if (!result.totalLines || *result.totalLines < 0)
            return {};
        // A read of part of a file says which part: every window of a long file read in turns would
        // otherwise show the same "100000 lines".
        const int lines = *result.totalLines;
        const int offset = result.offset;
        const qint64 last = std::min<qint64>(lines, offset + result.limit.value_or(lines) - 1);
        if (offset > 1 || last < lines)
            return ToolDisplay::tr("lines %L1–%L2 of %L3").arg(offset).arg(last).arg(lines);
        return lines == 1 ? ToolDisplay::tr("1 line") : ToolDisplay::tr("%L1 lines").arg(lines);
    }
    if (toolName == QLatin1String("grep") || toolName == QLatin1String("glob")) {
        if (!result.count || *result.count < 0)
            return {};
        const int count = *result.count;
        if (toolName == QLatin1String("grep"))
            return count == 1 ? ToolDisplay::tr("1 match") : ToolDisplay::tr("%1 matches").arg(count);
        return count == 1 ? ToolDisplay::tr("1 file") : ToolDisplay::tr("%1 files").arg(count);
    }
    if (toolName == QLatin1String("write_file")) {
        if (result.unchanged)
            return ToolDisplay::tr("unchanged");
        return result.bytesWritten && *result.bytesWritten >= 0
                   ? ToolDisplay::tr("%1 bytes").arg(*result.bytesWritten)
                   : QString();
    }
    if (toolName == QLatin1String("bash")) {
        return result.exitCode && *result.exitCode != 0 ? ToolDisplay::tr("exit %1").arg(*result.exitCode)
                                                        : QString();
    }
    if (toolName == QLatin1String("web_fetch")) {
        // "200 · 12 KB": the status and how much text came back (a cut page's text ends by saying so).
        if (result.statusCode <= 0)
            return {};
        return QString::number(result.statusCode) + QStringLiteral(" · ") +
               QLocale().formattedDataSize(result.content.toUtf8().size(), 0,
                                           QLocale::DataSizeTraditionalFormat);
    }
    if (toolName == QLatin1String("call_mcp_tool")) {
        // "3 kB", "3 kB · cached": how much came back, and whether the session's earlier result answered.
        const QString size = QLocale().formattedDataSize(result.content.toUtf8().size(), 0,
                                                         QLocale::DataSizeTraditionalFormat);
        return result.cached ? size + QStringLiteral(" · ") + ToolDisplay::tr("cached") : size;
    }
    if (toolName == QLatin1String("delegate_task"))
        return ToolDisplay::tr("%1 completed, %2 failed").arg(result.completedTasks).arg(result.failedTasks);
    return {};
}

QString ToolDisplay::duration(qint64 nanoseconds)
{
    if (nanoseconds < 1000000)
        return {}; // "0ms" on a refused or instant call says nothing
    const qint64 ms = nanoseconds / 1000000;
    if (ms < 1000)
        return ToolDisplay::tr("%1ms").arg(ms);
    if (ms < 60000)
        return ToolDisplay::tr("%1s").arg(QString::number(ms / 1000.0, 'f', 1));
    return ToolDisplay::tr("%1m %2s").arg(ms / 60000).arg((ms % 60000) / 1000);
}

QString ToolDisplay::fetchedText(const QString &toolName, const ToolResultFacts &result, const QString &error,
                                 QString *errorLine)
{
    *errorLine = error;
    if (toolName != QLatin1String("web_fetch") && toolName != QLatin1String("call_mcp_tool"))
        return {};
    if (!error.isEmpty()) {
        // "HTTP 404 Not Found from <url>", then the error page's text for the model: one line on the card,
        // the page below it.
        const qsizetype cut = error.indexOf(QLatin1Char('\n'));
        if (cut < 0)
            return {};
        *errorLine = error.left(cut);
        return error.mid(cut).trimmed();
    }
    return result.content.trimmed();
}

qint64 ToolDisplay::omittedOutputLines(const ToolResultFacts &result, const QString &shownText)
{
    qint64 total = result.stdoutLines + result.stderrLines;
    if (total <= 0 || shownText.isEmpty())
        return 0;
    // Errors short enough to be kept whole are shown below the output and not counted by the tool.
    if (!result.stderrText.isEmpty() && !result.stderrLinesCounted)
        total += result.stderrText.count(QLatin1Char('\n')) +
                 (result.stderrText.endsWith(QLatin1Char('\n')) ? 0 : 1);
    // The shown text has the kept lines and the line saying what was left out; near enough either way.
    return qMax<qint64>(0, total - (shownText.count(QLatin1Char('\n')) + 1));
}

QString ToolDisplay::terminalText(const QString &raw)
{
    constexpr char16_t Escape = 0x1b;
    constexpr char16_t Bell = 0x07;
    QString out;
    out.reserve(raw.size());
    qsizetype lineStart = 0; // where the line being written starts in out: a carriage return goes back there
    const qsizetype size = raw.size();
    for (qsizetype i = 0; i < size; ++i) {
        const char16_t c = raw.at(i).unicode();
        if (c == Escape) {
            const char16_t next = i + 1 < size ? raw.at(i + 1).unicode() : 0;
            if (next == u'[') { // CSI: parameters and intermediates up to a final byte 0x40-0x7e
                i += 2;
                while (i < size && (raw.at(i).unicode() < 0x40 || raw.at(i).unicode() > 0x7e))
                    ++i;
            } else if (next == u']') { // OSC (a title, a hyperlink's target): up to BEL or ESC backslash
                i += 2;
                while (i < size && raw.at(i).unicode() != Bell &&
                       !(raw.at(i).unicode() == Escape && i + 1 < size && raw.at(i + 1) == u'\\'))
                    ++i;
                if (i < size && raw.at(i).unicode() == Escape)
                    ++i;
            } else { // intermediates (ESC ( B) up to a final byte (ESC =, ESC 7)
                ++i;
                while (i < size && raw.at(i).unicode() >= 0x20 && raw.at(i).unicode() <= 0x2f)
                    ++i;
            }
            continue;
        }
        switch (c) {
        case u'\r':
            if (i + 1 < size && raw.at(i + 1) == u'\n')
                break; // CR LF is a line break
            out.truncate(lineStart);
            break;
        case u'\n':
            out += QChar(c);
            lineStart = out.size();
            break;
        case u'\b':
            if (out.size() > lineStart)
                out.chop(1);
            break;
        case u'\t':
            out += QChar(c);
            break;
        default:
            if (c >= 0x20 && c != 0x7f)
                out += QChar(c);
            break;
        }
    }
    return out;
}

QString ToolDisplay::delegationSummary(const QString &toolName, const ToolResultFacts &result)
{
    if (toolName != QLatin1String("delegate_task"))
        return {};
    QStringList lines;
    for (const ToolResultFacts::DelegatedTask &task : result.delegatedTasks) {
        const QString seconds = duration(task.durationMs * 1000000);
        if (task.completed)
            lines.append(task.toolCalls == 1
                             ? ToolDisplay::tr("%1: completed in %2, 1 tool call").arg(task.agent, seconds)
                             : ToolDisplay::tr("%1: completed in %2, %3 tool calls")
                                   .arg(task.agent, seconds)
                                   .arg(task.toolCalls));
        else
            lines.append(ToolDisplay::tr("%1: %2").arg(task.agent, task.error));
    }
    return lines.join(QLatin1Char('\n'));
}

bool ToolDisplay::isExpectedFailure(const QString &toolName, const QString &error)
{
    const QString lower = error.toLower();
    if (toolName == QLatin1String("read_file"))
        return lower.contains(QLatin1String("no such file")) ||
               lower.contains(QLatin1String("does not exist"));
    if (toolName == QLatin1String("edit_file"))
        return lower.contains(QLatin1String("does not exist in the current file snapshot")) ||
               lower.contains(QLatin1String("old string not found")) ||
               lower.contains(QLatin1String("oldstring not found"));
    return false;
}

} // namespace keen
