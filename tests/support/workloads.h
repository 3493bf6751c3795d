#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace keen::test {

// Real-sized inputs made at test or benchmark time (issue 11), never committed: long Markdown replies, their
// OpenAI-compatible SSE stream in small chunks, and big sessions.
struct Workloads
{
    // Markdown of about chars characters, like a coding agent's reply: headings, paragraphs with inline code,
    // lists, a table, fenced code blocks, and non-ASCII text. Deterministic.
    static QString markdownReply(qsizetype chars);
    // text cut into pieces of chunkChars characters (the last may be shorter).
    static QStringList chunks(const QString &text, int chunkChars);
    // A Chat Completions SSE body streaming pieces as content deltas, then stop, usage and [DONE].
    static QByteArray chatCompletionsSse(const QStringList &pieces);
    // A Chat Completions SSE body streaming preamble pieces as content, then one tool call (arguments as
    // compact JSON), finish_reason tool_calls, usage and [DONE].
    static QByteArray chatCompletionsToolCallSse(const QStringList &preamble, const QString &callId,
                                                 const QString &toolName, const QJsonObject &arguments);
    // The input of an ask_user call with one question: "Which database?", options SQLite and Postgres.
    static QJsonObject databaseQuestion();
    // Writes a reference-schema transcript with about events events (user and assistant turns with tool
    // calls, diffs and reasoning, a manual compaction every 2,000 events) into
    // <sessionsRoot>/<namespace>/<id>/. Returns the transcript path. bytesPerEvent sets the size (3,000 gives
    // about 30 MB for 10,000 events).
    static QString writeBigSession(const QString &sessionsRoot, const QString &workspace, int events,
                                   int bytesPerEvent = 3000);
};

} // namespace keen::test
