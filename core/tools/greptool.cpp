#include "tools/greptool.h"

#include "tools/filewalker.h"
#include "tools/hashline.h"
#include "tools/readfiletool.h"
#include "tools/toolinput.h"
#include "tools/toolpermissions.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>

namespace keen {

namespace {

QString displayLine(const QByteArray &raw)
{
    QString text = QString::fromUtf8(raw);
    if (text.size() > ReadFileTool::MaxLineRunes)
        text = text.left(ReadFileTool::MaxLineRunes) + QStringLiteral("... (line truncated)");
    return text;
}

} // namespace

QString GrepTool::name() const
{
    return QStringLiteral("grep");
}

QString GrepTool::description() const
{
    return QStringLiteral(
        "Search file contents with a regular expression (PCRE syntax). `path` is a file or folder (default: "
        "the "
        "working directory); `include` limits the search to files matching a glob such as \"*.cpp\". "
        "output_mode \"content\" (default) returns matching lines with their line numbers and line_hash, so "
        "`line_number:line_hash` is an edit_file anchor; \"file\" returns only the matching files. "
        "Gitignored "
        "and binary files are skipped; at most 1000 matches.");
}

QJsonObject GrepTool::inputSchema() const
{
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"),
         QJsonObject{
             {QStringLiteral("pattern"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("description"), QStringLiteral("Regular expression")}}},
             {QStringLiteral("path"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("description"), QStringLiteral("File or folder to search")}}},
             {QStringLiteral("include"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("description"), QStringLiteral("Only files matching this glob")}}},
             {QStringLiteral("output_mode"),
              QJsonObject{
                  {QStringLiteral("type"), QStringLiteral("string")},
                  {QStringLiteral("enum"), QJsonArray{QStringLiteral("content"), QStringLiteral("file")}},
                  {QStringLiteral("description"), QStringLiteral("content (default) or file")}}},
         }},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("pattern")}},
        {QStringLiteral("additionalProperties"), false},
    };
}

QString GrepTool::validateInput(const QJsonObject &input) const
{
    const QString tool = name();
    if (QString error = ToolInput::requireStrings(tool, input, {QStringLiteral("pattern")},
                                                  QStringLiteral("{\"pattern\":\"<regular expression>\"}"));
        !error.isEmpty())
        return error;
    if (QString error =
            ToolInput::unknownParameters(tool, input,
                                         {QStringLiteral("pattern"), QStringLiteral("path"),
                                          QStringLiteral("include"), QStringLiteral("output_mode")});
        !error.isEmpty())
        return error;
    for (const char *key : {"path", "include", "output_mode"}) {
        const QJsonValue value = input.value(QLatin1String(key));
        if (!value.isUndefined() && !value.isNull() && !value.isString())
            return ToolInput::wrongType(tool, QString::fromLatin1(key), GrepTool::tr("a string"));
    }
    const QString mode = input.value(QLatin1String("output_mode")).toString(QStringLiteral("content"));
    if (mode != QLatin1String("content") && mode != QLatin1String("file"))
        return ToolInput::invalid(tool, GrepTool::tr("output_mode must be \"content\" or \"file\""));
    const QRegularExpression regex(input.value(QLatin1String("pattern")).toString());
    if (!regex.isValid())
        return ToolInput::invalid(
            tool,
            GrepTool::tr("the pattern is not a valid regular expression (%1)").arg(regex.errorString()));
    return {};
}

ToolResult GrepTool::execute(const QJsonObject &input, ToolContext &context)
{
    const QString pattern = input.value(QLatin1String("pattern")).toString();
    QString base = input.value(QLatin1String("path")).toString();
    if (base.isEmpty())
        base = QStringLiteral(".");
    const QString include = input.value(QLatin1String("include")).toString();
    QString mode = input.value(QLatin1String("output_mode")).toString();
    if (mode.isEmpty())
        mode = QStringLiteral("content");
    const bool fileMode = mode == QLatin1String("file");

    QRegularExpression regex(pattern);
    if (!regex.isValid())
        return ToolResult::failure(GrepTool::tr("invalid regular expression: %1").arg(regex.errorString()));
    regex.optimize();

    QString root;
    if (auto refused = ToolPermissions::authorizeRead(context, name(), base, &root))
        return *refused;
    const QFileInfo rootInfo(root);
    if (!rootInfo.exists())
        return ToolResult::failure(GrepTool::tr("%1 does not exist").arg(base));

    // An include without '/' names files anywhere ("*.cpp"); with '/' it is a path pattern.
    const QRegularExpression includeRegex = FileWalker::globToRegex(include);
    const bool includeByName = !include.contains(QLatin1Char('/'));

    QJsonArray matches;
    QJsonArray files;
    bool truncated = false;
    const auto searchFile = [&](const QString &absolute, const QString &relative) {
        if (!include.isEmpty()) {
            const QString subject = includeByName ? QFileInfo(relative).fileName() : relative;
            if (!includeRegex.match(subject).hasMatch())
                return true;
        }
        QFile file(absolute);
        if (file.size() > ReadFileTool::MaxFileBytes || !file.open(QIODevice::ReadOnly))
            return true;
        const QByteArray bytes = file.readAll();
        if (bytes.left(8192).contains('\0'))
            return true; // binary
        const QList<QByteArray> lines = Hashline::splitLines(bytes);
        for (int i = 0; i < lines.size(); ++i) {
            const QString line = QString::fromUtf8(lines.at(i));
            if (!regex.match(line).hasMatch())
                continue;
            if (fileMode) {
                if (files.size() >= MaxMatches) {
                    truncated = true;
                    return false;
                }
                files.append(absolute);
                break;
            }
            if (matches.size() >= MaxMatches) {
                truncated = true;
                return false;
            }
            matches.append(QJsonObject{
                {QStringLiteral("file"), absolute},
                {QStringLiteral("line_number"), i + 1},
                {QStringLiteral("line"), displayLine(lines.at(i))},
                {QStringLiteral("line_hash"), Hashline::hash(lines.at(i))},
            });
        }
        return true;
    };

    if (rootInfo.isDir())
        FileWalker::walk(root, context, searchFile);
    else
        searchFile(root, rootInfo.fileName());
    if (context.cancel.isCancelled())
        return ToolResult::failure(GrepTool::tr("cancelled"));

    QJsonObject output{
        {QStringLiteral("pattern"), pattern},
        {QStringLiteral("base_path"), root},
        {QStringLiteral("output_mode"), mode},
    };
    if (fileMode) {
        output.insert(QStringLiteral("files"), files);
        output.insert(QStringLiteral("count"), files.size());
    } else {
        output.insert(QStringLiteral("matches"), matches);
        output.insert(QStringLiteral("count"), matches.size());
    }
    if (truncated)
        output.insert(QStringLiteral("truncated"), true);
    return ToolResult::success(output);
}

} // namespace keen
