#include "sourceregistry.h"

#include <QFile>

namespace keen::test {

const ModelRegistry &sourceModelRegistry()
{
    static const ModelRegistry registry = [] {
        QFile file(QStringLiteral(KEEN_SOURCE_DIR "/resources/models.json"));
        if (!file.open(QIODevice::ReadOnly))
            qFatal("cannot read resources/models.json");
        Result<ModelRegistry> parsed = ModelRegistry::fromJson(file.readAll(), file.fileName());
        if (!parsed)
            qFatal("%s", qPrintable(parsed.error()));
        return *parsed;
    }();
    return registry;
}

} // namespace keen::test
