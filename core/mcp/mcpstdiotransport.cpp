#include "mcp/mcpstdiotransport.h"

#include "base/logcategories.h"

#include <QJsonDocument>
#include <QProcessEnvironment>

namespace keen {

McpStdioTransport::McpStdioTransport(const QString &command, const QStringList &args,
                                     const QMap<QString, QString> &env, const QString &workingDirectory,
                                     const QStringList &hiddenEnvironment, QObject *parent)
    : McpTransport(parent)
    , m_command(command)
    , m_args(args)
    , m_env(env)
    , m_workingDirectory(workingDirectory)
    , m_hiddenEnvironment(hiddenEnvironment)
{
    connect(&m_process, &QProcess::started, this, &McpTransport::started);
    connect(&m_process, &QProcess::readyReadStandardOutput, this, &McpStdioTransport::readMessages);
    connect(&m_process, &QProcess::readyReadStandardError, this, &McpStdioTransport::readErrors);
    connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            fail(tr("could not start %1: %2").arg(m_command, m_process.errorString()));
    });
    connect(&m_process, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        readMessages();
        readErrors();
        if (!m_errorBuffer.isEmpty())
            m_errorLines.append(QString::fromUtf8(m_errorBuffer).trimmed());
        const QString how = status == QProcess::CrashExit
                                ? tr("%1 crashed").arg(m_command)
                                : tr("%1 exited with code %2").arg(m_command).arg(exitCode);
        const QString said = lastErrors();
        fail(said.isEmpty() ? how : how + QStringLiteral(": ") + said);
    });
}

McpStdioTransport::~McpStdioTransport()
{
    close();
}

void McpStdioTransport::start()
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const QString &hidden : std::as_const(m_hiddenEnvironment))
        environment.remove(hidden);
    for (auto it = m_env.constBegin(); it != m_env.constEnd(); ++it)
        environment.insert(it.key(), it.value());
    m_process.setProcessEnvironment(environment);
    if (!m_workingDirectory.isEmpty())
        m_process.setWorkingDirectory(m_workingDirectory);
    m_process.setProgram(m_command);
    m_process.setArguments(m_args);
    m_process.start(QIODevice::ReadWrite);
}

void McpStdioTransport::send(const QJsonObject &message)
{
    if (m_failed || m_closing)
        return;
    QByteArray line = QJsonDocument(message).toJson(QJsonDocument::Compact);
    line += '\n';
    m_process.write(line);
}

void McpStdioTransport::close()
{
    if (m_closing)
        return;
    m_closing = true;
    m_process.disconnect(this);
    if (m_process.state() == QProcess::NotRunning)
        return;
    // MCP's stdio shutdown: end its input, give it a moment, then SIGTERM, then SIGKILL.
    m_process.closeWriteChannel();
    if (m_process.waitForFinished(300))
        return;
    m_process.terminate();
    if (m_process.waitForFinished(300))
        return;
    m_process.kill();
    m_process.waitForFinished(300);
}

void McpStdioTransport::readMessages()
{
    m_buffer += m_process.readAllStandardOutput();
    qsizetype start = 0;
    for (qsizetype end = m_buffer.indexOf('\n'); end >= 0; end = m_buffer.indexOf('\n', start)) {
        const QByteArray line = m_buffer.mid(start, end - start).trimmed();
        start = end + 1;
        if (line.isEmpty())
            continue;
        const QJsonDocument document = QJsonDocument::fromJson(line);
        // A server that logs to stdout breaks its own protocol; its other lines still count.
        if (document.isObject())
            Q_EMIT messageReceived(document.object());
        if (m_closing || m_failed)
            return;
    }
    m_buffer.remove(0, start);
    if (m_buffer.size() > MaxMessageBytes)
        fail(tr("%1 sent a message larger than %2 MiB").arg(m_command).arg(MaxMessageBytes >> 20));
}

void McpStdioTransport::readErrors()
{
    m_errorBuffer += m_process.readAllStandardError();
    qsizetype start = 0;
    for (qsizetype end = m_errorBuffer.indexOf('\n'); end >= 0; end = m_errorBuffer.indexOf('\n', start)) {
        const QString line = QString::fromUtf8(m_errorBuffer.mid(start, end - start)).trimmed();
        start = end + 1;
        if (line.isEmpty())
            continue;
        qCDebug(LogCategories::mcp()).noquote() << m_command << "says:" << line;
        m_errorLines.append(line.left(300));
        if (m_errorLines.size() > KeptErrorLines)
            m_errorLines.removeFirst();
    }
    m_errorBuffer.remove(0, start);
    if (m_errorBuffer.size() > 4096)
        m_errorBuffer = m_errorBuffer.right(4096);
}

QString McpStdioTransport::lastErrors() const
{
    return m_errorLines.join(QStringLiteral(" | "));
}

void McpStdioTransport::fail(const QString &message)
{
    if (m_failed || m_closing)
        return;
    m_failed = true;
    Q_EMIT failed(message);
}

} // namespace keen
