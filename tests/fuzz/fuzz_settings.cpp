// settings.json under any content: a clear error or settings that save and load back the same.
#include "config/settings.h"
#include "fuzzsupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    keen::fuzz::ensureApplication();
    const QByteArray json(reinterpret_cast<const char *>(data), qsizetype(size));
    const QString path = QStringLiteral("/nonexistent/settings.json");
    const keen::Result<keen::Settings> settings = keen::Settings::fromJson(json, path);
    if (!settings) {
        if (settings.error().isEmpty())
            __builtin_trap();
        return 0;
    }
    const QByteArray saved = settings->toJson();
    const keen::Result<keen::Settings> again = keen::Settings::fromJson(saved, path);
    if (!again || again->toJson() != saved)
        __builtin_trap(); // what the app writes, it reads back unchanged
    return 0;
}
