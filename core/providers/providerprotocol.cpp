#include "providers/providerprotocol.h"

#include <QJsonDocument>

namespace keen {

QStringList ProviderProtocol::modelIds(const QByteArray &modelsList) const
{
    QStringList ids;
    const QJsonArray data =
        QJsonDocument::fromJson(modelsList).object().value(QStringLiteral("data")).toArray();
    for (const QJsonValue &entry : data) {
        const QString id = entry.toObject().value(QStringLiteral("id")).toString();
        if (!id.isEmpty() && !ids.contains(id))
            ids << id;
    }
    return ids;
}

} // namespace keen
