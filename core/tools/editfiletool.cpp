#include "tools/editfiletool.h"

#include "tools/atomicfilewriter.h"
#include "tools/guardedfile.h"
#include "tools/hashline.h"
#include "tools/readfiletool.h"
#include "tools/toolinput.h"
#include "tools/unifieddiff.h"

#include <QCoreApplication>
#include <QFile>

#include <algorithm>

namespace keen {

namespace {

const QString Required =
    QStringLiteral("{\"path\":\"<file path>\",\"ops\":[{\"op\":\"replace\",\"start\":\"LINE:HASH\","
                   "\"text\":\"<new text>\"}]}");
const QStringList OpKinds = {QStringLiteral("replace"), QStringLiteral("insert_after"),
                             QStringLiteral("insert_before"), QStringLiteral("insert_head"),
                             QStringLiteral("insert_tail")};

QList<QByteArray> textLines(const QString &text)
{
    QList<QByteArray> lines;
    if (text.isEmpty())
        return lines;
    QStringList parts = text.split(QLatin1Char('\n'));
    if (text.endsWith(QLatin1Char('\n')))
        parts.removeLast();
    for (QString &part : parts) {
        if (part.endsWith(QLatin1Char('\r')))
            part.chop(1);
        lines.append(part.toUtf8());
    }
    return lines;
}

struct Edit
{
    int position = 0;    // index of the first line removed, or where lines are inserted
    int removeCount = 0; // replace only
    QList<QByteArray> lines;
    int opNumber = 0; // 1-based, for messages and a stable order
    int rank = 1;     // at one position: insert_head lines come first, insert_tail lines last
};

} // namespace

QString EditFileTool::name() const
{
    return QStringLiteral("edit_file");
}

QString EditFileTool::description() const
{
    return QStringLiteral(
        "Edit an existing text file by line anchors. Read the file with read_file first and copy anchors "
        "exactly as `LINE:HASH` (for example \"12:a3f\"). Operations: replace (lines start..end, end "
        "defaults to "
        "start; empty text deletes them), insert_after and insert_before (relative to start), insert_head "
        "and "
        "insert_tail (no anchor). All operations refer to the same snapshot you read, are applied together, "
        "and "
        "fail together; if an anchor no longer matches, read the file again and retry. Prefer this over "
        "write_file for changes to existing files.");
}

QJsonObject EditFileTool::inputSchema() const
{
    const QJsonObject op{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"),
         QJsonObject{
             {QStringLiteral("op"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("enum"), QJsonArray::fromStringList(OpKinds)},
                          {QStringLiteral("description"), QStringLiteral("Operation (default replace)")}}},
             {QStringLiteral("start"),
              QJsonObject{
                  {QStringLiteral("type"), QStringLiteral("string")},
                  {QStringLiteral("description"),
                   QStringLiteral("Anchor LINE:HASH from read_file; not used by insert_head/insert_tail")}}},
             {QStringLiteral("end"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("description"),
                           QStringLiteral("Last line LINE:HASH of a replace range (inclusive)")}}},
             {QStringLiteral("text"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("description"), QStringLiteral("The new lines, without anchors")}}},
         }},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("text")}},
        {QStringLiteral("additionalProperties"), false},
    };
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"),
         QJsonObject{
             {QStringLiteral("path"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("description"), QStringLiteral("File to edit")}}},
             {QStringLiteral("ops"), QJsonObject{{QStringLiteral("type"), QStringLiteral("array")},
                                                 {QStringLiteral("minItems"), 1},
                                                 {QStringLiteral("items"), op}}},
         }},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("path"), QStringLiteral("ops")}},
        {QStringLiteral("additionalProperties"), false},
    };
}

QString EditFileTool::validateInput(const QJsonObject &input) const
{
    const QString tool = name();
    if (QString error = ToolInput::requireStrings(tool, input, {QStringLiteral("path")}, Required);
        !error.isEmpty())
        return error;
    const QJsonValue ops = input.value(QLatin1String("ops"));
    if (ops.isUndefined() || ops.isNull())
        return ToolInput::missingRequired(tool, QStringLiteral("ops"), Required);
    if (QString error =
            ToolInput::unknownParameters(tool, input, {QStringLiteral("path"), QStringLiteral("ops")});
        !error.isEmpty())
        return error;
    if (!ops.isArray() || ops.toArray().isEmpty())
        return ToolInput::wrongType(tool, QStringLiteral("ops"),
                                    EditFileTool::tr("a non-empty array of operations"));
    int number = 0;
    for (const QJsonValue &value : ops.toArray()) {
        ++number;
        if (!value.isObject())
            return ToolInput::invalid(tool, EditFileTool::tr("op %1 is not an object").arg(number));
        const QJsonObject op = value.toObject();
        for (auto it = op.constBegin(); it != op.constEnd(); ++it) {
            if (!QStringList{QStringLiteral("op"), QStringLiteral("start"), QStringLiteral("end"),
                             QStringLiteral("text")}
                     .contains(it.key()))
                return ToolInput::invalid(
                    tool, EditFileTool::tr("op %1 has an unknown field \"%2\"").arg(number).arg(it.key()));
        }
        const QString kind = op.value(QLatin1String("op")).toString(QStringLiteral("replace"));
        if (!OpKinds.contains(kind))
            return ToolInput::invalid(
                tool, EditFileTool::tr("op %1 has an unknown op \"%2\"").arg(number).arg(kind));
        if (!op.value(QLatin1String("text")).isString())
            return ToolInput::invalid(tool, EditFileTool::tr("op %1 needs \"text\" (a string)").arg(number));
        const bool needsStart = kind != QLatin1String("insert_head") && kind != QLatin1String("insert_tail");
        if (needsStart && !op.value(QLatin1String("start")).isString())
            return ToolInput::invalid(
                tool, EditFileTool::tr("op %1 (%2) needs \"start\" as LINE:HASH").arg(number).arg(kind));
        if (op.contains(QLatin1String("end")) && kind != QLatin1String("replace"))
            return ToolInput::invalid(
                tool, EditFileTool::tr("op %1: \"end\" is only allowed with replace").arg(number));
    }
    return {};
}

QByteArray EditFileTool::applyOperations(const QByteArray &content, const QJsonArray &ops, QString *error)
{
    QList<QByteArray> lines = Hashline::splitLines(content);
    const int count = int(lines.size());
    const bool crlf = content.contains("\r\n");
    const bool finalNewline = content.isEmpty() || content.endsWith('\n');

    // Resolves an anchor against the snapshot: a 0-based line index, or -1 with *error set.
    const auto resolve = [&](const QString &anchorText, int opNumber) -> int {
        const Hashline::Anchor anchor = Hashline::parseAnchor(anchorText);
        if (!anchor.isValid()) {
            *error =
                EditFileTool::tr("op %1: invalid anchor \"%2\"; use LINE:HASH exactly as read_file shows it")
                    .arg(opNumber)
                    .arg(anchorText);
            return -1;
        }
        if (anchor.line > count || Hashline::hash(lines.at(anchor.line - 1)) != anchor.hash) {
            *error = EditFileTool::tr(
                         "op %1: anchor \"%2\" does not exist in the current file snapshot; re-read the file "
                         "and retry")
                         .arg(opNumber)
                         .arg(anchorText.trimmed());
            return -1;
        }
        return anchor.line - 1;
    };

    QList<Edit> edits;
    int opNumber = 0;
    for (const QJsonValue &value : ops) {
        ++opNumber;
        const QJsonObject op = value.toObject();
        const QString kind = op.value(QLatin1String("op")).toString(QStringLiteral("replace"));
        Edit edit;
        edit.opNumber = opNumber;
        edit.lines = textLines(op.value(QLatin1String("text")).toString());
        if (kind == QLatin1String("insert_head")) {
            edit.position = 0;
            edit.rank = 0;
        } else if (kind == QLatin1String("insert_tail")) {
            edit.position = count;
            edit.rank = 2;
        } else {
            const int start = resolve(op.value(QLatin1String("start")).toString(), opNumber);
            if (start < 0)
                return {};
            if (kind == QLatin1String("replace")) {
                int end = start;
                if (op.contains(QLatin1String("end"))) {
                    end = resolve(op.value(QLatin1String("end")).toString(), opNumber);
                    if (end < 0)
                        return {};
                    if (end < start) {
                        *error = EditFileTool::tr("op %1: end comes before start").arg(opNumber);
                        return {};
                    }
                }
                edit.position = start;
                edit.removeCount = end - start + 1;
            } else {
                edit.position = kind == QLatin1String("insert_after") ? start + 1 : start;
            }
        }
        if (edit.removeCount == 0 && edit.lines.isEmpty()) {
            *error = EditFileTool::tr("op %1: text is empty, so there is nothing to insert").arg(opNumber);
            return {};
        }
        edits.append(edit);
    }

    // Replaced ranges may not overlap each other, and nothing may be inserted inside one.
    for (const Edit &a : std::as_const(edits)) {
        if (a.removeCount == 0)
            continue;
        for (const Edit &b : std::as_const(edits)) {
            if (&a == &b)
                continue;
            const bool overlaps =
                b.removeCount > 0
                    ? b.position < a.position + a.removeCount && a.position < b.position + b.removeCount
                    : b.position > a.position && b.position < a.position + a.removeCount;
            if (overlaps) {
                *error = EditFileTool::tr("op %1 overlaps op %2; combine them into one operation")
                             .arg(std::max(a.opNumber, b.opNumber))
                             .arg(std::min(a.opNumber, b.opNumber));
                return {};
            }
        }
    }

    // Bottom-up, so earlier positions stay valid. At one position a replace goes first and inserts follow in
    // reverse, which leaves them in the order the model gave (head inserts first, tail inserts last).
    std::stable_sort(edits.begin(), edits.end(), [](const Edit &a, const Edit &b) {
        if (a.position != b.position)
            return a.position > b.position;
        if ((a.removeCount > 0) != (b.removeCount > 0))
            return a.removeCount > 0;
        if (a.rank != b.rank)
            return a.rank > b.rank;
        return a.opNumber > b.opNumber;
    });
    for (const Edit &edit : std::as_const(edits)) {
        lines.remove(edit.position, edit.removeCount);
        for (int i = int(edit.lines.size()) - 1; i >= 0; --i)
            lines.insert(edit.position, edit.lines.at(i));
    }

    QByteArray out = lines.join(crlf ? QByteArrayView("\r\n") : QByteArrayView("\n"));
    if (finalNewline && !lines.isEmpty())
        out += crlf ? "\r\n" : "\n";
    return out;
}

ToolResult EditFileTool::execute(const QJsonObject &input, ToolContext &context)
{
    const QString path = input.value(QLatin1String("path")).toString();
    QString resolved;
    if (auto refused =
            AtomicFileWriter::checkTarget(context, path, FilesystemGuard::Operation::Edit, &resolved))
        return *refused;

    QByteArray snapshot;
    if (const QString error = ReadFileTool::loadText(resolved, path, &snapshot); !error.isEmpty())
        return ToolResult::failure(error);
    QString error;
    const QByteArray updated = applyOperations(snapshot, input.value(QLatin1String("ops")).toArray(), &error);
    if (!error.isEmpty())
        return ToolResult::failure(error);
    if (updated == snapshot)
        return ToolResult::failure(EditFileTool::tr("the operations leave %1 unchanged").arg(path));
    if (auto refused = AtomicFileWriter::refuseSecret(resolved, updated))
        return *refused;

    PermissionRequest request;
    request.toolName = name();
    request.path = path;
    request.diff = UnifiedDiff::make(AtomicFileWriter::shownPath(context, resolved),
                                     QString::fromUtf8(snapshot), QString::fromUtf8(updated));
    if (auto refused = AtomicFileWriter::authorize(context, request, FilesystemGuard::Operation::Edit))
        return *refused;

    // The person may have taken a while; never overwrite changes made meanwhile.
    Result<std::unique_ptr<QFile>> current = GuardedFile::openForReading(resolved, path);
    if (!current)
        return ToolResult::failure(current.error());
    if ((*current)->readAll() != snapshot)
        return ToolResult::failure(
            EditFileTool::tr("%1 changed while waiting for permission; re-read the file and retry")
                .arg(path));
    current.value().reset(); // closed before the rename

    if (auto failed = AtomicFileWriter::write(resolved, path, updated))
        return *failed;
    return AtomicFileWriter::written(
        QJsonObject{{QStringLiteral("success"), true}, {QStringLiteral("path"), resolved}}, request.diff);
}

} // namespace keen
