#pragma once

#include "conversation/droppeddetail.h"
#include "conversation/message.h"

#include <QList>
#include <QString>

namespace keen {

// Finds the DroppedDetail list of a compaction (issue 16 point 3): regular expressions over the compacted
// range, the text that survives the compaction (its replacement: the summary, the pins, the latest user
// message) searched for each hit.
namespace DroppedDetails {

// At most limit details: error lines (a tool's reported error, lines that look like error output, a Python
// traceback by its last line), then paths (relative, absolute, ~/), identifiers (code names, CONSTANT_CASE,
// errno names, hashes, UUIDs, ticket keys) and numbers (dates and versions whole), each kind in the order of
// first occurrence. No
// kind crowds out the others: each gets an equal share of limit (the rest to the kinds in that order), and
// what one kind leaves unused goes to the others, so a range of only paths still lists limit of them. The
// system prompt is not part of the compacted range; Keen's own replacement markup and the keys and line
// prefixes of tool output are no details.
QList<DroppedDetail> find(const MessageList &compacted, const QString &kept, int limit = 50);

} // namespace DroppedDetails
} // namespace keen
