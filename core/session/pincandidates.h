#pragma once

#include "conversation/pin.h"
#include "session/sessionevent.h"

#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

namespace keen {

// What a person can pin from a conversation (issue 16, "Pins"): a message, a code block of a reply, a
// tool's result. One rule for the chat's context menu and for `run --session ID --pinnable` / `--pin-item
// N`, so a pin made in either is the same pin.
namespace PinCandidates {

// A message as the person or the model wrote it, whole.
Pin message(const QString &text, bool fromUser);
// A fenced code block of a reply, its lines without the fences.
Pin codeBlock(const QString &code);
// A tool's result: what its command printed (output, already shown), else what the tool returned as the
// model got it (result), else fallback (the card's line, the error). source names the call: "read_file
// src/a.cpp".
Pin toolResult(const QString &toolName, const QString &detail, const QString &output,
               const QJsonValue &result, const QString &fallback);

// The fenced code blocks of Markdown, in order, each without its fence lines (an unclosed last one runs to
// the end).
QStringList codeBlocks(const QString &markdown);

// Everything a transcript's chat shows that can be pinned, in the order the chat shows it: each user
// message, each reply (the text between two tool calls is one), its code blocks after it, each tool result;
// a manual compaction's summary as a reply. Pins and notes are not offered again.
PinList fromEvents(const QList<SessionEvent> &events);

} // namespace PinCandidates
} // namespace keen
