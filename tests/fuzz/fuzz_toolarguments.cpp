// Tool-call argument text from a model, under any content: parsed as the tool loop parses it, then checked
// the way the tools check their input, and compressed the way their output is for the model. No crash, no
// leak; malformed text gives {} (reference 1.1).
#include "fuzzsupport.h"
#include "providers/wiresupport.h"
#include "tools/hashline.h"
#include "tools/outputcompressor.h"
#include "tools/toolinput.h"

#include <QJsonArray>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    keen::fuzz::ensureApplication();
    const QString arguments = QString::fromUtf8(reinterpret_cast<const char *>(data), qsizetype(size));
    const QJsonObject input = keen::WireSupport::toolInput(arguments);
    using keen::ToolInput;
    const QString tool = QStringLiteral("edit_file");
    (void)ToolInput::requireStrings(tool, input, {QStringLiteral("path"), QStringLiteral("oldString")},
                                    QStringLiteral("{\"path\":\"<file>\"}"));
    (void)ToolInput::optionalInteger(tool, input, QStringLiteral("offset"), 0);
    (void)ToolInput::optionalInteger(tool, input, QStringLiteral("limit"), 1);
    (void)ToolInput::unknownParameters(
        tool, input, {QStringLiteral("path"), QStringLiteral("ops"), QStringLiteral("content")});
    for (const QJsonValue &op : input.value(QStringLiteral("ops")).toArray()) {
        const QJsonObject object = op.toObject();
        (void)keen::Hashline::parseAnchor(object.value(QStringLiteral("start")).toString());
        (void)keen::Hashline::parseAnchor(object.value(QStringLiteral("end")).toString());
    }
    for (const QString &name :
         {QStringLiteral("read_file"), QStringLiteral("glob"), QStringLiteral("grep"), QStringLiteral("bash"),
          QStringLiteral("write_file"), QStringLiteral("edit_file")})
        (void)keen::OutputCompressor::forLlm(name, input);
    return 0;
}
