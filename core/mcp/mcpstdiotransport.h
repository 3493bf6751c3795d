#pragma once

#include "mcp/mcptransport.h"

#include <QByteArray>
#include <QMap>
#include <QProcess>
#include <QStringList>

namespace keen {

// An MCP server run as a local program: newline-delimited JSON-RPC on its stdin and stdout (MCP's stdio
// transport). What it writes to stderr is its log; the last lines are kept to say why it stopped. The program
// runs in the workspace, with this app's environment less the providers' key variables (a server gets a key
// only when its entry's "env" gives one) plus its entry's env.
class McpStdioTransport final : public McpTransport
{
    Q_OBJECT

public:
    static constexpr qsizetype MaxMessageBytes = 64 * 1024 * 1024;
    static constexpr int KeptErrorLines = 8;

    McpStdioTransport(const QString &command, const QStringList &args, const QMap<QString, QString> &env,
                      const QString &workingDirectory, const QStringList &hiddenEnvironment,
                      QObject *parent = nullptr);
    ~McpStdioTransport() override;

    void start() override;
    void send(const QJsonObject &message) override;
    void close() override;

private:
    void readMessages();
    void readErrors();
    void fail(const QString &message);
    QString lastErrors() const;

    QString m_command;
    QStringList m_args;
    QMap<QString, QString> m_env;
    QString m_workingDirectory;
    QStringList m_hiddenEnvironment;
    QProcess m_process;
    QByteArray m_buffer;      // stdout bytes not yet forming a line
    QByteArray m_errorBuffer; // stderr bytes not yet forming a line
    QStringList m_errorLines; // the last ones
    bool m_closing = false;
    bool m_failed = false;
};

} // namespace keen
