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

    static QString kindName(Kind kind); // note, message, code_block, tool_result, detail
    static std::optional<Kind> kindFromName(const QString &name);
    static QString newId();
};

using PinList = QList<Pin>;

} // namespace keen
