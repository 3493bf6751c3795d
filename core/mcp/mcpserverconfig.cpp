#include "mcp/mcpserverconfig.h"

#include "base/controlcharacters.h"
#include "base/regularfile.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>
#include <cstring>

namespace keen {

namespace {

// "${VAR}" replaced by the environment's value; a variable that is not set is a problem of the entry.
QString expand(const QString &text, QStringList &unset)
{
    static const QRegularExpression variable(QStringLiteral("\\$\\{([A-Za-z_][A-Za-z0-9_]*)\\}"));
    QString result;
    qsizetype last = 0;
    for (auto it = variable.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        const QString name = match.captured(1);
        result += QStringView(text).mid(last, match.capturedStart() - last);
        if (!qEnvironmentVariableIsSet(name.toLocal8Bit().constData()) && !unset.contains(name))
            unset.append(name);
        result += qEnvironmentVariable(name.toLocal8Bit().constData());
        last = match.capturedEnd();
    }
    result += QStringView(text).mid(last);
    return result;
}

bool isTokenChar(char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return c != '\0' && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

// Why this header cannot be sent as it is; empty when it can. A line break in a value would become another
// header (a key pasted with its newline, a helper's second line).
QString headerProblem(const QByteArray &name, const QByteArray &value)
{
    if (name.isEmpty() || !std::all_of(name.cbegin(), name.cend(), isTokenChar))
        return McpServerConfig::tr("the header name \"%1\" is not valid (letters, digits and "
                                   "!#$%&'*+-.^_`|~ only)")
            .arg(QString::fromLatin1(name).left(80));
    if (ControlCharacters::inUtf8(value))
        return McpServerConfig::tr("the value of the header \"%1\" holds a line break or another control "
                                   "character")
            .arg(QString::fromLatin1(name));
    return {};
}

McpServerConfig parseServer(const QString &name, const QJsonValue &value)
{
    McpServerConfig server;
    server.name = name;
    if (!McpServerConfig::isValidName(name)) {
        server.problem = McpServerConfig::tr("the name must be one word of letters, digits, '.', '_' or '-' "
                                             "(at most 60)");
        return server;
    }
    if (!value.isObject()) {
        server.problem = McpServerConfig::tr("the entry is not a JSON object");
        return server;
    }
    const QJsonObject entry = value.toObject();
    QStringList unset;
    server.disabled = entry.value(QLatin1String("disabled")).toBool();
    const QJsonValue timeout = entry.value(QLatin1String("timeout_seconds"));
    if (timeout.isDouble() && timeout.toDouble() >= 1 && timeout.toDouble() <= 24 * 3600)
        server.callTimeoutSeconds = int(timeout.toDouble());
    else if (!timeout.isUndefined())
        server.problem = McpServerConfig::tr("timeout_seconds must be a number of seconds from 1 to 86400");

    const bool hasCommand = entry.contains(QLatin1String("command"));
    const bool hasUrl = entry.contains(QLatin1String("url"));
    if (hasCommand == hasUrl) {
        server.problem = McpServerConfig::tr("give either \"command\" (a local program) or \"url\" (a remote "
                                             "server)");
        return server;
    }
    if (hasCommand) {
        server.transport = McpServerConfig::Transport::Stdio;
        server.command = expand(entry.value(QLatin1String("command")).toString().trimmed(), unset);
        if (server.command.isEmpty())
            server.problem = McpServerConfig::tr("\"command\" must name a program");
        const QJsonValue args = entry.value(QLatin1String("args"));
        if (!args.isUndefined() && !args.isArray())
            server.problem = McpServerConfig::tr("\"args\" must be a list of strings");
        for (const QJsonValue &arg : args.toArray())
            server.args.append(expand(arg.toString(), unset));
        const QJsonObject env = entry.value(QLatin1String("env")).toObject();
        for (auto it = env.constBegin(); it != env.constEnd(); ++it)
            server.env.insert(it.key(), expand(it.value().toString(), unset));
    } else {
        server.transport = McpServerConfig::Transport::Http;
        server.url = QUrl(expand(entry.value(QLatin1String("url")).toString().trimmed(), unset));
        if (!server.url.isValid() ||
            (server.url.scheme() != QLatin1String("http") && server.url.scheme() != QLatin1String("https")) ||
            server.url.host().isEmpty())
            server.problem = McpServerConfig::tr("\"url\" must be an http:// or https:// address");
        const QJsonObject headers = entry.value(QLatin1String("headers")).toObject();
        for (auto it = headers.constBegin(); it != headers.constEnd(); ++it)
            server.headers.append({it.key().toUtf8(), expand(it.value().toString(), unset).toUtf8()});
        const QJsonObject auth = entry.value(QLatin1String("auth")).toObject();
        server.authType = auth.value(QLatin1String("type")).toString().trimmed().toLower();
        if (server.authType == QLatin1String("bearer") || server.authType == QLatin1String("header")) {
            const bool bearer = server.authType == QLatin1String("bearer");
            server.authHeader = auth.value(QLatin1String("header"))
                                    .toString(bearer ? QStringLiteral("Authorization") : QString())
                                    .trimmed();
            const QString scheme =
                auth.value(QLatin1String("scheme")).toString(bearer ? QStringLiteral("Bearer") : QString());
            const QString key = expand(auth.value(QLatin1String("key")).toString(), unset).trimmed();
            if (server.authHeader.isEmpty())
                server.problem = McpServerConfig::tr("auth of type \"header\" needs \"header\", the header's "
                                                     "name");
            else if (key.isEmpty())
                server.problem = McpServerConfig::tr("auth needs \"key\" (or \"${VARIABLE}\")");
            else
                server.headers.append({server.authHeader.toUtf8(),
                                       (scheme.isEmpty() ? key : scheme + QLatin1Char(' ') + key).toUtf8()});
        } else if (server.authType == QLatin1String("oauth")) {
            const QJsonValue scopes = auth.value(QLatin1String("scopes"));
            if (scopes.isString())
                server.oauthScopes = scopes.toString().split(QLatin1Char(' '), Qt::SkipEmptyParts);
            else if (scopes.isArray())
                for (const QJsonValue &scope : scopes.toArray())
                    server.oauthScopes.append(scope.toString());
            else if (!scopes.isUndefined())
                server.problem = McpServerConfig::tr("\"scopes\" must be a list of strings");
            server.oauthClientId = expand(auth.value(QLatin1String("client_id")).toString(), unset).trimmed();
            server.oauthClientSecret =
                expand(auth.value(QLatin1String("client_secret")).toString(), unset).trimmed();
            const QJsonValue port = auth.value(QLatin1String("callback_port"));
            if (port.isDouble() && port.toDouble() >= 0 && port.toDouble() <= 65535)
                server.oauthCallbackPort = quint16(port.toInt());
            else if (!port.isUndefined())
                server.problem = McpServerConfig::tr("\"callback_port\" must be a port number (0 for any)");
            if (!server.oauthClientSecret.isEmpty() && server.oauthClientId.isEmpty())
                server.problem = McpServerConfig::tr("\"client_secret\" needs \"client_id\"");
        } else if (!server.authType.isEmpty() && server.authType != QLatin1String("none")) {
            server.problem = McpServerConfig::tr("unknown auth type \"%1\" (bearer, header or oauth)")
                                 .arg(server.authType);
        }
        for (const auto &[headerName, headerValue] : std::as_const(server.headers)) {
            if (const QString problem = headerProblem(headerName, headerValue); !problem.isEmpty())
                server.problem = problem;
        }
    }
    if (!unset.isEmpty() && server.problem.isEmpty())
        server.problem = McpServerConfig::tr("the environment variable %1 is not set")
                             .arg(unset.join(QStringLiteral(", ")));
    return server;
}

} // namespace

QString McpServerConfig::endpoint() const
{
    if (transport == Transport::Http)
        return QStringLiteral("http: ") + url.toString(QUrl::RemoveUserInfo | QUrl::RemoveQuery);
    QStringList words{command};
    words += args;
    QString line = words.join(QLatin1Char(' '));
    if (line.size() > 80)
        line = line.left(79) + QStringLiteral("…");
    return QStringLiteral("stdio: ") + line;
}

QString McpServerConfig::authSummary() const
{
    if (transport == Transport::Stdio)
        return env.isEmpty() ? tr("none") : tr("environment");
    if (authType == QLatin1String("bearer"))
        return tr("bearer token");
    if (authType == QLatin1String("header"))
        return tr("key in %1").arg(authHeader);
    if (authType == QLatin1String("oauth"))
        return tr("OAuth");
    return headers.isEmpty() ? tr("none") : tr("headers");
}

QString McpServerConfig::path(const QString &dataDir)
{
    return QDir(dataDir).filePath(QStringLiteral("mcp/configs.json"));
}

bool McpServerConfig::isValidName(const QString &name)
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]{0,59}$"));
    return pattern.match(name).hasMatch();
}

Result<QList<McpServerConfig>> McpServerConfig::readFile(const QString &path)
{
    using R = Result<QList<McpServerConfig>>;
    if (!QFileInfo::exists(path) && !QFileInfo(path).isSymLink())
        return QList<McpServerConfig>();
    RegularFile::Read read = RegularFile::read(path, MaxFileBytes);
    if (!read.ok())
        return R::failure(read.error);
    return parse(path, read.bytes);
}

Result<QList<McpServerConfig>> McpServerConfig::parse(const QString &path, const QByteArray &bytes)
{
    using R = Result<QList<McpServerConfig>>;
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError)
        return R::failure(tr("%1 is not valid JSON: %2 at byte %3")
                              .arg(path, error.errorString(), QString::number(error.offset)));
    const QJsonValue servers = document.object().value(QLatin1String("servers"));
    if (!document.isObject() || (!servers.isUndefined() && !servers.isObject()))
        return R::failure(tr("%1 must hold an object {\"servers\": {\"<name>\": {...}}}").arg(path));
    QList<McpServerConfig> list;
    const QJsonObject entries = servers.toObject();
    for (auto it = entries.constBegin(); it != entries.constEnd(); ++it)
        list.append(parseServer(it.key(), it.value()));
    return list; // QJsonObject keeps its keys sorted: name order
}

} // namespace keen
