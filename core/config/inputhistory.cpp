#include "config/inputhistory.h"

#include "base/regularfile.h"
#include "config/settings.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <sys/stat.h>

namespace keen {

namespace {

// Read from its end, whatever its size: a file someone else made huge costs no more than ours.
constexpr qint64 AnySize = qint64(1) << 50;

// The whole lines of the last tailBytes of the file (a line cut by the start of the tail is left out), or
// nothing when it cannot be read (missing, not a regular file).
QStringList lastLines(const QString &path, qint64 tailBytes)
{
    const RegularFile::Read read = RegularFile::readTail(path, AnySize, tailBytes);
    if (!read.ok())
        return {};
    QStringList lines = QString::fromUtf8(read.bytes).split(QLatin1Char('\n'));
    if (!lines.isEmpty() && lines.constLast().isEmpty())
        lines.removeLast(); // the file ends with a line break
    if (read.offset > 0 && !lines.isEmpty())
        lines.removeFirst();
    return lines;
}

QString cannotSave(const QString &path, const QString &reason)
{
    return InputHistory::tr("Cannot save the input history %1: %2").arg(path, reason);
}

} // namespace

QString InputHistory::defaultPath()
{
    return Settings::configDirectory() + QStringLiteral("/input-history");
}

QString InputHistory::escaped(const QString &prompt)
{
    QString line;
    line.reserve(prompt.size());
    for (const QChar c : prompt) {
        if (c == QLatin1Char('\\'))
            line += QStringLiteral("\\\\");
        else if (c == QLatin1Char('\n'))
            line += QStringLiteral("\\n");
        else if (c == QLatin1Char('\r'))
            line += QStringLiteral("\\r");
        else
            line += c;
    }
    return line;
}

QString InputHistory::unescaped(const QString &line)
{
    QString prompt;
    prompt.reserve(line.size());
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line.at(i);
        if (c != QLatin1Char('\\') || i + 1 == line.size()) {
            prompt += c;
            continue;
        }
        const QChar next = line.at(++i);
        if (next == QLatin1Char('n'))
            prompt += QLatin1Char('\n');
        else if (next == QLatin1Char('r'))
            prompt += QLatin1Char('\r');
        else
            prompt += next; // "\\", and any other escape as the character itself
    }
    return prompt;
}

QStringList InputHistory::load(const QString &path)
{
    QStringList prompts;
    const QStringList lines = lastLines(path, MaxFileBytes);
    for (qsizetype i = qMax<qsizetype>(0, lines.size() - MaxEntries); i < lines.size(); ++i) {
        if (!lines.at(i).isEmpty())
            prompts.append(unescaped(lines.at(i)));
    }
    return prompts;
}

Result<void> InputHistory::append(const QString &prompt, const QString &path)
{
    if (prompt.trimmed().isEmpty() || prompt.size() > MaxEntryChars)
        return {};
    QDir().mkpath(QFileInfo(path).absolutePath());
    // Only to a regular file: appending to a FIFO would block until a reader came.
    if (const Result<void> appended =
            RegularFile::append(path, (escaped(prompt) + QLatin1Char('\n')).toUtf8());
        !appended)
        return Result<void>::failure(appended.error());
    if (QFileInfo(path).size() <= MaxFileBytes)
        return {};

    // Kept short: the newest MaxEntries of its last half.
    const QStringList lines = lastLines(path, MaxFileBytes / 2);
    QSaveFile rewrite(path);
    if (!rewrite.open(QIODevice::WriteOnly))
        return Result<void>::failure(cannotSave(path, rewrite.errorString()));
    rewrite.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    const QStringList kept = lines.mid(qMax<qsizetype>(0, lines.size() - MaxEntries));
    rewrite.write((kept.join(QLatin1Char('\n')) + QLatin1Char('\n')).toUtf8());
    if (!rewrite.commit())
        return Result<void>::failure(cannotSave(path, rewrite.errorString()));
    return {};
}

} // namespace keen
