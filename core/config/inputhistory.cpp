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

// Longer than MaxEntries escaped entries of MaxEntryChars can be: a bigger file is not ours to read.
constexpr qint64 MaxFileBytes =
    qint64(InputHistory::MaxEntries) * 2 * (InputHistory::MaxEntryChars * 2 + 1) * 4;

QStringList linesOf(const QByteArray &bytes)
{
    QStringList lines = QString::fromUtf8(bytes).split(QLatin1Char('\n'));
    if (!lines.isEmpty() && lines.constLast().isEmpty())
        lines.removeLast(); // the file ends with a line break
    return lines;
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
    const RegularFile::Read read = RegularFile::read(path, MaxFileBytes);
    if (!read.ok())
        return {};
    QStringList prompts;
    const QStringList lines = linesOf(read.bytes);
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
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Append))
        return Result<void>::failure(
            tr("Cannot save the input history %1: %2").arg(path, file.errorString()));
    ::fchmod(file.handle(), 0600);
    if (file.write((escaped(prompt) + QLatin1Char('\n')).toUtf8()) < 0)
        return Result<void>::failure(
            tr("Cannot save the input history %1: %2").arg(path, file.errorString()));
    file.close();

    // Kept short: rewritten with the newest MaxEntries once it holds twice as many.
    const RegularFile::Read read = RegularFile::read(path, MaxFileBytes);
    if (!read.ok())
        return {};
    const QStringList lines = linesOf(read.bytes);
    if (lines.size() < 2 * MaxEntries)
        return {};
    QSaveFile rewrite(path);
    if (!rewrite.open(QIODevice::WriteOnly))
        return Result<void>::failure(
            tr("Cannot save the input history %1: %2").arg(path, rewrite.errorString()));
    rewrite.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    rewrite.write(
        (lines.mid(lines.size() - MaxEntries).join(QLatin1Char('\n')) + QLatin1Char('\n')).toUtf8());
    if (!rewrite.commit())
        return Result<void>::failure(
            tr("Cannot save the input history %1: %2").arg(path, rewrite.errorString()));
    return {};
}

} // namespace keen
