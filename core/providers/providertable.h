#pragma once

#include "providers/providerdescriptor.h"

#include <QCoreApplication>
#include <QList>
#include <QString>
#include <QStringList>

namespace keen {

// The one provider table: a ProviderDescriptor per provider id, in the order the UI offers them. Ids that are
// not in the table are custom OpenAI-compatible servers configured under "providers" in settings.json.
class ProviderTable
{
    Q_DECLARE_TR_FUNCTIONS(ProviderTable)

public:
    static const QList<ProviderDescriptor> &all();
    static const ProviderDescriptor *find(const QString &providerId);
    static QStringList ids();
    static bool isKnown(const QString &providerId) { return find(providerId) != nullptr; }

    // Shorthands over find(); an unknown id answers as a custom OpenAI-compatible server would.
    static QString defaultBaseUrl(const QString &providerId);
    static AuthMode authMode(const QString &providerId);
    static QString clientProvider(const QString &providerId);
    static QStringList keyEnvironmentVariables(const QString &providerId);
};

} // namespace keen
