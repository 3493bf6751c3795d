#include "agent/datacleanup.h"

#include "session/sessionwriter.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QLockFile>

namespace keen {

namespace {

constexpr int TitlesShown = 5;

// Regular files under folder last changed before cutoff. Symbolic links are not followed: a link to a
// folder elsewhere must not make the cleanup delete outside the data folder.
void collectOldFiles(const QString &folder, const QDateTime &cutoff, DataCleanup::Plan &plan)
{
    QDirIterator it(folder, QDir::Files | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        const QFileInfo info = it.fileInfo();
        if (info.isSymLink() || info.lastModified() >= cutoff)
            continue;
        plan.files.append(info.absoluteFilePath());
        plan.fileBytes += info.size();
    }
}

qint64 folderSize(const QString &folder)
{
    qint64 bytes = 0;
    QDirIterator it(folder, QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        bytes += it.fileInfo().size();
    }
    return bytes;
}

} // namespace

DataCleanup::Plan DataCleanup::plan(const QString &dataDir, const SessionStore &store, const QDateTime &now,
                                    const QString &openSessionId)
{
    Plan plan;
    if (!dataDir.isEmpty()) {
        const QDir data(dataDir);
        const QDateTime artifactCutoff = now.addDays(-ArtifactDays);
        for (const QString &name :
             {QStringLiteral("bash"), QStringLiteral("mcp-artifacts"), QStringLiteral("web-fetch-artifacts")})
            collectOldFiles(data.filePath(name), artifactCutoff, plan);
        collectOldFiles(data.filePath(QStringLiteral("logs")), now.addDays(-LogDays), plan);
    }
    const QDateTime sessionCutoff = now.addDays(-SessionDays);
    for (const SessionInfo &info : store.list()) {
        if (info.id == openSessionId || !info.problem.isEmpty() || !info.updatedAt.isValid() ||
            info.updatedAt >= sessionCutoff)
            continue;
        plan.sessions.append(info);
        plan.sessionBytes += folderSize(info.directory);
    }
    return plan;
}

DataCleanup::Outcome DataCleanup::apply(const Plan &plan, SessionStore &store)
{
    Outcome outcome;
    for (const QString &path : plan.files) {
        const qint64 size = QFileInfo(path).size();
        QFile file(path);
        if (file.remove()) {
            ++outcome.filesRemoved;
            outcome.bytesFreed += size;
        } else if (file.exists()) {
            outcome.problems.append(tr("Cannot remove %1: %2").arg(path, file.errorString()));
        }
    }
    for (const SessionInfo &info : plan.sessions) {
        // Held by a window that has it open (here or in another process): it is in use, not old. Let go at
        // once: the lock file goes with the folder, and a QLockFile whose file vanished complains.
        {
            QLockFile lock(SessionWriter::lockPath(info.path));
            if (!lock.tryLock(0)) {
                outcome.problems.append(
                    tr("Kept \u201c%1\u201d: it is open in another window.").arg(info.title));
                continue;
            }
        }
        const qint64 size = folderSize(info.directory);
        if (const Result<void> removed = store.remove(info.id); !removed) {
            outcome.problems.append(removed.error());
            continue;
        }
        ++outcome.sessionsRemoved;
        outcome.bytesFreed += size;
    }
    return outcome;
}

QString DataCleanup::describe(const Plan &plan)
{
    const QLocale locale;
    QStringList lines;
    if (!plan.files.isEmpty())
        lines.append(
            (plan.files.size() == 1
                 ? tr("%1 file of command output, tool artifacts and logs (%2), older than %3 days")
                 : tr("%1 files of command output, tool artifacts and logs (%2), older than %3 days"))
                .arg(plan.files.size())
                .arg(locale.formattedDataSize(plan.fileBytes))
                .arg(ArtifactDays));
    if (!plan.sessions.isEmpty()) {
        lines.append((plan.sessions.size() == 1 ? tr("%1 session not used for %2 days (%3):")
                                                : tr("%1 sessions not used for %2 days (%3):"))
                         .arg(plan.sessions.size())
                         .arg(SessionDays)
                         .arg(locale.formattedDataSize(plan.sessionBytes)));
        for (qsizetype i = 0; i < plan.sessions.size() && i < TitlesShown; ++i) {
            const SessionInfo &info = plan.sessions.at(i);
            lines.append(QStringLiteral("  • ") + (info.title.isEmpty() ? info.id : info.title) +
                         QStringLiteral(" (") +
                         locale.toString(info.updatedAt.toLocalTime().date(), QLocale::ShortFormat) +
                         QLatin1Char(')'));
        }
        if (plan.sessions.size() > TitlesShown)
            lines.append(QStringLiteral("  • ") + tr("and %1 more").arg(plan.sessions.size() - TitlesShown));
    }
    return lines.join(QLatin1Char('\n'));
}

QString DataCleanup::report(const Outcome &outcome)
{
    const QString files = outcome.filesRemoved == 1 ? tr("1 file") : tr("%1 files").arg(outcome.filesRemoved);
    const QString sessions =
        outcome.sessionsRemoved == 1 ? tr("1 session") : tr("%1 sessions").arg(outcome.sessionsRemoved);
    QString text = tr("Removed %1 and %2 (%3 freed).")
                       .arg(files, sessions, QLocale().formattedDataSize(outcome.bytesFreed));
    for (const QString &problem : outcome.problems)
        text += QStringLiteral("\n- ") + problem;
    return text;
}

} // namespace keen
