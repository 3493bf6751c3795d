#pragma once

#include "base/result.h"
#include "session/sessionevent.h"
#include "session/sessionstore.h"

#include <QCoreApplication>
#include <QList>
#include <QString>

namespace keen {

// Writes a session as Markdown a person can read or share: the title, user and assistant turns, tool calls as
// fenced blocks with their inputs and (shortened) outputs, interruptions, errors and compaction markers.
// An automatic compaction's summary is private to the model and is never exported; a manual one's is.
class SessionExporter
{
    Q_DECLARE_TR_FUNCTIONS(SessionExporter)

public:
    // Tool output longer than this many lines is cut, with a note of how much was left out.
    static constexpr int kMaxOutputLines = 40;
    static constexpr int kMaxOutputChars = 4000;

    static QString toMarkdown(const SessionInfo &info, const QList<SessionEvent> &events);

    // Loads the session (by id or transcript path) and writes its Markdown to filePath with QSaveFile.
    static Result<void> exportToFile(const SessionStore &store, const QString &sessionIdOrPath,
                                     const QString &filePath);
};

} // namespace keen
