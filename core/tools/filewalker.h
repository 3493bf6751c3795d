#pragma once

#include <QRegularExpression>
#include <QString>

#include <functional>

namespace keen {

class FilesystemGuard;
struct ToolContext;

// Walks a folder for glob and grep: sorted, depth first, never into .git, gitignored or guard-denied folders,
// never through symlinked folders (they could lead out of the workspace or loop).
class FileWalker
{
public:
    // visit(absolutePath, pathRelativeToRoot) returns false to stop the walk.
    using Visitor = std::function<bool(const QString &absolutePath, const QString &relativePath)>;
    static void walk(const QString &root, const FilesystemGuard &guard, const Visitor &visit);
    // The same for a tool: with context.guard (or one made for context.workspace when the caller set none),
    // stopping as soon as context.cancel is cancelled.
    static void walk(const QString &root, const ToolContext &context, const Visitor &visit);

    // A glob (`*`, `?`, `**`, `[...]`, `{a,b}`) as an anchored regular expression over '/'-separated paths.
    static QRegularExpression globToRegex(const QString &glob);
};

} // namespace keen
