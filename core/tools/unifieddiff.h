#pragma once

#include <QString>

namespace keen {

// Unified diffs (3 lines of context) for the permission prompt and the tool result of write_file and
// edit_file. dtl finds the shortest edit script; the hunks are laid out here in GNU diff's format.
class UnifiedDiff
{
public:
    // label: the file as shown in the headers (usually workspace-relative). created: the old side is
    // /dev/null. Empty when the texts are equal.
    static QString make(const QString &label, const QString &oldText, const QString &newText,
                        bool created = false, int context = 3);
};

} // namespace keen
