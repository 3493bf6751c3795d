#pragma once

#include <QList>
#include <QString>

#include <optional>

namespace keen {

// Something the person pinned so it survives every compaction verbatim (issue 16, "Pins"): a message, a code
// block, a tool result, a typed note or the original text around a detail a summary left out. Pins are
// transcript events (pin_added / pin_removed); a compaction puts them after its summary.
struct Pin
{
    enum class Kind { Note, Message, CodeBlock, ToolResult, Detail };

    QString id; // unique within the session, e.g. "pin-3f2a9c01"
    Kind kind = Kind::Note;
    QString text;   // kept verbatim
    QString source; // where it came from, for the person and the model: "read_file src/a.cpp"; may be empty

    bool operator==(const Pin &) const = default;

    // The pin as the person reads it (the chat's pin row, the Pins dialog, `run --pins`). A tool result is
    // pinned as the model got it, often JSON; it reads as its card showed it: a read's file text without the
    // line:hash| prefixes, a command's output, a search's matches, a tool's error. Any other pin: its text.
    QString shownText() const;
    // The first line of shownText() (a dropped detail's: the line that holds the detail), at most 120
    // characters: what the chat's pin rows and the Pins dialog name it by.
    QString headline() const;

    static QString kindName(Kind kind); // note, message, code_block, tool_result, detail
    static std::optional<Kind> kindFromName(const QString &name);
    static QString newId();
};

using PinList = QList<Pin>;

} // namespace keen
