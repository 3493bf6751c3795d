#pragma once

#include "conversation/toolresultfacts.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QString>

namespace keen {

// How a tool call reads in a card (reference 6.5): a short label, the detail it acts on, metadata
// from its result (ToolResultFacts: the card never reads the tool's JSON), and its duration.
class ToolDisplay
{
    Q_DECLARE_TR_FUNCTIONS(ToolDisplay)

public:
    static QString label(const QString &toolName);
    static QString detail(const QString &toolName, const QJsonObject &input);
    static QString metadata(const QString &toolName, const ToolResultFacts &result);
    static QString duration(qint64 nanoseconds);
    // A fetched page (or an MCP tool's answer) under its card: the text (success) or what follows the
    // error's first line (failure); *errorLine gets what the card's error line shows. Empty for other tools.
    static QString fetchedText(const QString &toolName, const ToolResultFacts &result, const QString &error,
                               QString *errorLine);
    // The lines of a long command's output its card does not have (shownText is the card's text of
    // ToolResultFacts::commandOutput): the tool keeps the start and the end of it and counts the lines
    // (stdout_lines, stderr_lines). 0 when nothing was left out.
    static qint64 omittedOutputLines(const ToolResultFacts &result, const QString &shownText);
    // Output as a terminal would show it, for the card: colour and other escape sequences go (a link's
    // text stays), a line redrawn after a carriage return shows its last state (a progress bar), a
    // backspace takes the character before it, other control characters go. What the model and the
    // transcript get is unchanged.
    static QString terminalText(const QString &raw);
    // delegate_task's card once it ended: a line per task, "reviewer: completed in 12 s, 5 tool calls" or
    // "tester: timed out after 60 s". Empty for other tools and when the output has no results.
    static QString delegationSummary(const QString &toolName, const ToolResultFacts &result);
    // Failures the reference hides (a missing file on read, a stale edit anchor).
    static bool isExpectedFailure(const QString &toolName, const QString &error);
};

} // namespace keen
