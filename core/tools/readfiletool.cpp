#include "tools/readfiletool.h"
#include "tools/guardedfile.h"

#include "tools/hashline.h"
#include "tools/toolinput.h"
#include "tools/toolpermissions.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>

namespace keen {

namespace {

const QString Required = QStringLiteral("{\"path\":\"<file path>\"}");

} // namespace

QString ReadFileTool::name() const
{
    return QStringLiteral("read_file");
}

QString ReadFileTool::description() const
{
    return QStringLiteral(
        "Read a UTF-8 text file. Every line comes back as `N:HASH|text`: N is the 1-based line number and "
        "HASH "
        "a 3-character fingerprint of the line. Use `N:HASH` as the anchor when you edit with edit_file. "
        "Reads 1000 lines from `offset` (1-based, default 1) unless `limit` says otherwise; `truncated` "
        "tells "
        "you more lines follow. Lines longer than 1000 characters are cut. Binary files and files over 25 MB "
        "are refused. Prefer this over shell commands such as cat, head or tail.");
}

QJsonObject ReadFileTool::inputSchema() const
{
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"),
         QJsonObject{
             {QStringLiteral("path"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("description"),
                           QStringLiteral("File to read, relative to the working directory or absolute")}}},
             {QStringLiteral("offset"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("integer")},
                          {QStringLiteral("minimum"), 1},
                          {QStringLiteral("description"),
                           QStringLiteral("First line to read, 1-based (default 1)")}}},
             {QStringLiteral("limit"),
              QJsonObject{
                  {QStringLiteral("type"), QStringLiteral("integer")},
                  {QStringLiteral("minimum"), 1},
                  {QStringLiteral("description"), QStringLiteral("Number of lines to read (default 1000)")}}},
         }},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("path")}},
        {QStringLiteral("additionalProperties"), false},
    };
}

QString ReadFileTool::validateInput(const QJsonObject &input) const
{
    const QString tool = name();
    if (QString error = ToolInput::requireStrings(tool, input, {QStringLiteral("path")}, Required);
        !error.isEmpty())
        return error;
    if (QString error = ToolInput::unknownParameters(
            tool, input, {QStringLiteral("path"), QStringLiteral("offset"), QStringLiteral("limit")});
        !error.isEmpty())
        return error;
    if (QString error = ToolInput::optionalInteger(tool, input, QStringLiteral("offset"), 1);
        !error.isEmpty())
        return error;
    return ToolInput::optionalInteger(tool, input, QStringLiteral("limit"), 1);
}

QString ReadFileTool::loadText(const QString &absolutePath, const QString &shownPath, QByteArray *bytes)
{
    const QFileInfo info(absolutePath);
    if (!info.exists())
        return ReadFileTool::tr("file not found: %1").arg(shownPath);
    if (info.isDir())
        return ReadFileTool::tr("%1 is a directory; use glob to list its files").arg(shownPath);
    if (info.size() > MaxFileBytes)
        return ReadFileTool::tr("%1 is too large (%2 bytes; the limit is 25 MB)")
            .arg(shownPath)
            .arg(info.size());
    // Opened so that a link swapped in since the guard's check is refused, not followed.
    Result<std::unique_ptr<QFile>> file = GuardedFile::openForReading(absolutePath, shownPath);
    if (!file)
        return file.error();
    *bytes = (*file)->read(MaxFileBytes + 1);
    if (bytes->size() > MaxFileBytes)
        return ReadFileTool::tr("%1 is too large (the limit is 25 MB)").arg(shownPath);
    if (bytes->contains('\0'))
        return ReadFileTool::tr("%1 is a binary file (it contains NUL bytes); only text files can be read")
            .arg(shownPath);
    if (!bytes->isValidUtf8()) // checked in place: decoding a 25 MB file only to throw it away cost 50 MB
        return ReadFileTool::tr("%1 is not valid UTF-8; only UTF-8 text files can be read").arg(shownPath);
    return {};
}

QString ReadFileTool::formatLine(int number, QByteArrayView rawLine)
{
    QString text = QString::fromUtf8(rawLine);
    // Count code points, not UTF-16 units, so a line of emoji is cut at the same place as one of letters.
    qsizetype runes = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text.at(i).isHighSurrogate() && i + 1 < text.size())
            ++i;
        if (++runes == MaxLineRunes && i + 1 < text.size()) {
            text.truncate(i + 1);
            text += QStringLiteral("... (line truncated)");
            break;
        }
    }
    return QStringLiteral("%1:%2|%3").arg(number).arg(Hashline::hash(rawLine), text);
}

ToolResult ReadFileTool::execute(const QJsonObject &input, ToolContext &context)
{
    const QString path = input.value(QLatin1String("path")).toString();
    const int offset = input.value(QLatin1String("offset")).toInt(1);
    const int limit = input.value(QLatin1String("limit")).toInt(DefaultLimit);

    QString resolved;
    if (auto refused = ToolPermissions::authorizeRead(context, name(), path, &resolved))
        return *refused;

    QByteArray bytes;
    if (const QString error = loadText(resolved, path, &bytes); !error.isEmpty())
        return ToolResult::failure(error);

    // The lines as Hashline::splitLines() cuts them, but only the ones shown are copied and formatted; the
    // rest are counted (a 100,000-line file is read for 1,000 of its lines).
    QStringList shown;
    const int first = offset - 1;
    const qint64 end = qint64(first) + limit;
    int total = 0;
    for (qsizetype start = 0; start < bytes.size(); ++total) {
        qsizetype lineEnd = bytes.indexOf('\n', start);
        if (lineEnd < 0)
            lineEnd = bytes.size();
        if (total >= first && total < end) {
            QByteArrayView line = QByteArrayView(bytes).sliced(start, lineEnd - start);
            if (line.endsWith('\r'))
                line.chop(1);
            shown.append(formatLine(total + 1, line));
        }
        start = lineEnd + 1;
    }
    if (offset > total && !(offset == 1 && total == 0))
        return ToolResult::failure(ReadFileTool::tr("offset %1 is past the end of %2, which has %3 lines")
                                       .arg(offset)
                                       .arg(path)
                                       .arg(total));
    const int last = int(std::min<qint64>(total, end));

    return ToolResult::success(QJsonObject{
        {QStringLiteral("path"), resolved},
        {QStringLiteral("content"), shown.join(QLatin1Char('\n'))},
        {QStringLiteral("bytes_read"), qint64(bytes.size())},
        {QStringLiteral("offset"), offset},
        {QStringLiteral("limit"), limit},
        {QStringLiteral("total_lines"), total},
        {QStringLiteral("truncated"), last < total},
    });
}

} // namespace keen
