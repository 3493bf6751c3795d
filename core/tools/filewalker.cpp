#include "tools/filewalker.h"

#include "tools/filesystemguard.h"
#include "tools/tool.h"

#include <QDir>
#include <QFileInfo>

namespace keen {

namespace {

bool walkFolder(const QString &folder, const QString &relative, const FilesystemGuard &guard,
                const FileWalker::Visitor &visit)
{
    const QFileInfoList entries = QDir(folder).entryInfoList(
        QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name | QDir::DirsLast);
    for (const QFileInfo &entry : entries) {
        const QString name = entry.fileName();
        const QString path = entry.absoluteFilePath();
        const QString childRelative = relative.isEmpty() ? name : relative + QLatin1Char('/') + name;
        if (entry.isSymLink()) {
            if (entry.isDir())
                continue;
            // A symlinked file counts only where its target may be read without asking: a link that leads
            // out of the workspace never lets a search read what lies outside.
            if (!guard.checkPath(path, FilesystemGuard::Operation::Read).granted())
                continue;
        } else if (guard.isGitIgnored(path)) {
            continue;
        }
        if (entry.isDir()) {
            if (name == QLatin1String(".git") ||
                guard.checkPath(path, FilesystemGuard::Operation::Read).denied())
                continue;
            if (!walkFolder(path, childRelative, guard, visit))
                return false;
        } else if (entry.isFile()) {
            if (!visit(path, childRelative))
                return false;
        }
    }
    return true;
}

} // namespace

void FileWalker::walk(const QString &root, const FilesystemGuard &guard, const Visitor &visit)
{
    walkFolder(root, QString(), guard, visit);
}

void FileWalker::walk(const QString &root, const ToolContext &context, const Visitor &visit)
{
    const FilesystemGuard fallback(context.workspace, context.dataDir);
    const FilesystemGuard &guard = context.guard ? *context.guard : fallback;
    walk(root, guard, [&](const QString &absolute, const QString &relative) {
        return !context.cancel.isCancelled() && visit(absolute, relative);
    });
}

QRegularExpression FileWalker::globToRegex(const QString &glob)
{
    QString regex = QStringLiteral("^");
    int braces = 0;
    for (qsizetype i = 0; i < glob.size(); ++i) {
        const QChar c = glob.at(i);
        if (c == QLatin1Char('*')) {
            if (i + 1 < glob.size() && glob.at(i + 1) == QLatin1Char('*')) {
                ++i;
                if (i + 1 < glob.size() && glob.at(i + 1) == QLatin1Char('/')) {
                    ++i;
                    regex += QStringLiteral("(?:.*/)?"); // "**/" also matches no folder at all
                } else {
                    regex += QStringLiteral(".*");
                }
            } else {
                regex += QStringLiteral("[^/]*");
            }
        } else if (c == QLatin1Char('?')) {
            regex += QStringLiteral("[^/]");
        } else if (c == QLatin1Char('[')) {
            const qsizetype close = glob.indexOf(QLatin1Char(']'), i + 1);
            if (close < 0) {
                regex += QStringLiteral("\\[");
                continue;
            }
            QString set = glob.mid(i + 1, close - i - 1);
            if (set.startsWith(QLatin1Char('!')))
                set[0] = QLatin1Char('^');
            set.replace(QLatin1Char('\\'), QStringLiteral("\\\\"));
            regex += QLatin1Char('[') + set + QLatin1Char(']');
            i = close;
        } else if (c == QLatin1Char('{')) {
            ++braces;
            regex += QStringLiteral("(?:");
        } else if (c == QLatin1Char('}') && braces > 0) {
            --braces;
            regex += QLatin1Char(')');
        } else if (c == QLatin1Char(',') && braces > 0) {
            regex += QLatin1Char('|');
        } else {
            regex += QRegularExpression::escape(QString(c));
        }
    }
    regex += QLatin1Char('$');
    return QRegularExpression(regex);
}

} // namespace keen
