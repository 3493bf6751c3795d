#pragma once

#include <QCoreApplication>
#include <QString>
#include <QStringList>

namespace keen {

// What a provider configuration still lacks before a turn can use it: a model always, the base URL of a
// server without a known one (ProviderDescriptor::needsBaseUrl), a key where one is required and none is
// typed, set in its environment variable or stored by the app, and the ChatGPT sign-in for Codex. The
// first-run setup and the settings dialog both ask it, so they refuse the same configurations.
class SetupCheck
{
    Q_DECLARE_TR_FUNCTIONS(SetupCheck)

public:
    struct Fields
    {
        QString providerId;
        QString apiKey;
        QString baseUrl;
        QString model;
        bool keyStored = false; // the app holds a key for the provider (keychain or secrets.json)
        bool signedIn = false;  // a ChatGPT sign-in is stored or has just succeeded
    };

    // One sentence per thing to enter or do; empty when the configuration is usable.
    static QStringList missing(const Fields &fields);
    // The first of the provider's key variables that is set in this process's environment, else empty.
    static QString keyVariableSet(const QString &providerId);
};

} // namespace keen
