#include "agent/memoryreport.h"

#include "base/regularfile.h"

#include <QFileInfo>
#include <QLocale>

namespace keen {

namespace {

QString scopeName(MemoryReport::Scope scope)
{
    return scope == MemoryReport::Scope::Global ? MemoryReport::tr("Global memory")
                                                : MemoryReport::tr("Project memory");
}

QString state(const QString &path)
{
    const QFileInfo info(path);
    if (!info.exists())
        return MemoryReport::tr("not created");
    const QString problem = RegularFile::problem(path, MemoryReport::ShowLimit);
    if (!problem.isEmpty() && info.size() <= MemoryReport::ShowLimit)
        return problem;
    return QLocale().formattedDataSize(info.size());
}

// A fence longer than any run of backticks in text, so the text shows as it is.
QString fenceFor(const QString &text)
{
    qsizetype longest = 0;
    qsizetype run = 0;
    for (const QChar c : text) {
        run = c == QLatin1Char('`') ? run + 1 : 0;
        longest = qMax(longest, run);
    }
    return QString(qMax<qsizetype>(3, longest + 1), QLatin1Char('`'));
}

} // namespace

QString MemoryReport::list(const QString &globalPath, const QString &projectPath)
{
    QString text = QStringLiteral("**") + tr("Memory") + QStringLiteral("**\n\n| | ") + tr("File") +
                   QStringLiteral(" | ") + tr("State") + QStringLiteral(" |\n|---|---|---|\n");
    const auto row = [&](Scope scope, const QString &path) {
        text += QStringLiteral("| ") + scopeName(scope) + QStringLiteral(" | `") + path +
                QStringLiteral("` | ") + state(path) + QStringLiteral(" |\n");
    };
    row(Scope::Global, globalPath);
    row(Scope::Project, projectPath);
    return text + QStringLiteral("\n") +
           tr("Both are part of the system prompt. `/memory show global` or `/memory show project` prints "
              "one; "
              "ask the agent to remember something and it writes them.");
}

QString MemoryReport::show(Scope scope, const QString &path)
{
    const QString heading =
        QStringLiteral("**") + scopeName(scope) + QStringLiteral("** (`") + path + QStringLiteral("`)\n\n");
    if (!QFileInfo::exists(path))
        return heading + tr("Not created yet.");
    const RegularFile::Read read = RegularFile::read(path, ShowLimit);
    if (!read.ok())
        return heading + read.error;
    const QString content = QString::fromUtf8(read.bytes);
    if (content.trimmed().isEmpty())
        return heading + tr("The file is empty.");
    const QString fence = fenceFor(content);
    return heading + fence + QStringLiteral("markdown\n") + content +
           (content.endsWith(QLatin1Char('\n')) ? QString() : QStringLiteral("\n")) + fence;
}

} // namespace keen
