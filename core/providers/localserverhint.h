#pragma once

#include <QCoreApplication>
#include <QString>
#include <QUrl>

namespace keen {

// What to say when a server on this machine refuses the connection: it is not running, and retrying will
// not start it. The chat's error and the settings dialog's connection test say the same.
class LocalServerHint
{
    Q_DECLARE_TR_FUNCTIONS(LocalServerHint)

public:
    static bool isLocalHost(const QUrl &url);
    // "connection refused at http://localhost:11434: is Ollama running?" when the port is a known local
    // server's (the provider table's presets), else a hint about the port.
    static QString connectionRefused(const QUrl &url);
};

} // namespace keen
