// A stand-in MCP server on stdin and stdout, as the tests need one: it lists its tools two to a page (so the
// client must follow nextCursor) and answers tools/call for each. Every line it receives is appended to the
// file named by FAKE_MCP_LOG, when set, so a test can see what the client sent.
//   --fail-start       exit at once with a message on stderr
//   --version V        answer initialize with protocol version V
//   --no-tools         offer no tools capability
// Tools: echo {text}, add {a, b}, big {bytes}, fail {}, sleep {ms}, env {name}, cwd {}, pid {}, crash {},
// ping_me {} (asks the client for a ping first), lookup {kind: "a"|"b"} (read-only).
#include <QByteArray>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QThread>

#include <cstdio>
#include <iostream>
#include <string>
#include <unistd.h>

namespace {

void send(const QJsonObject &message)
{
    const QByteArray line = QJsonDocument(message).toJson(QJsonDocument::Compact) + '\n';
    std::fwrite(line.constData(), 1, size_t(line.size()), stdout);
    std::fflush(stdout);
}

void log(const std::string &line)
{
    const QByteArray path = qgetenv("FAKE_MCP_LOG");
    if (path.isEmpty())
        return;
    QFile file(QString::fromLocal8Bit(path));
    if (file.open(QIODevice::Append))
        file.write(QByteArray::fromStdString(line) + '\n');
}

QJsonObject result(const QJsonValue &id, const QJsonObject &value)
{
    return {{"jsonrpc", "2.0"}, {"id", id}, {"result", value}};
}

QJsonObject textResult(const QString &text, bool isError = false)
{
    QJsonObject value{{"content", QJsonArray{QJsonObject{{"type", "text"}, {"text", text}}}}};
    if (isError)
        value.insert("isError", true);
    return value;
}

QJsonObject schema(const QJsonObject &properties, const QJsonArray &required)
{
    return {{"type", "object"}, {"properties", properties}, {"required", required}};
}

QJsonArray tools()
{
    auto tool = [](const char *name, const char *description, const QJsonObject &inputSchema) {
        return QJsonObject{{"name", name}, {"description", description}, {"inputSchema", inputSchema}};
    };
    QJsonObject lookup =
        tool("lookup", "Looks a thing up.",
             schema({{"kind", QJsonObject{{"type", "string"}, {"enum", QJsonArray{"a", "b"}}}}}, {"kind"}));
    lookup.insert("annotations", QJsonObject{{"readOnlyHint", true}});
    QJsonObject strictEcho = schema({{"text", QJsonObject{{"type", "string"}}}}, {"text"});
    strictEcho.insert("additionalProperties", false);
    return {
        tool("echo", "Says the text back.", strictEcho),
        tool("add", "Adds two numbers.",
             schema({{"a", QJsonObject{{"type", "number"}}}, {"b", QJsonObject{{"type", "number"}}}},
                    {"a", "b"})),
        tool("big", "A long text.", schema({{"bytes", QJsonObject{{"type", "integer"}}}}, {"bytes"})),
        tool("fail", "Always fails.", schema({}, {})),
        tool("sleep", "Waits.", schema({{"ms", QJsonObject{{"type", "integer"}}}}, {"ms"})),
        tool("env", "An environment variable.",
             schema({{"name", QJsonObject{{"type", "string"}}}}, {"name"})),
        tool("cwd", "The working folder.", schema({}, {})),
        tool("pid", "The process id.", schema({}, {})),
        tool("crash", "Exits in the middle of the call.", schema({}, {})),
        tool("ping_me", "Pings the client first.", schema({}, {})),
        lookup,
    };
}

QJsonObject call(const QString &name, const QJsonObject &arguments)
{
    if (name == "echo")
        return textResult(arguments.value("text").toString());
    if (name == "add")
        return textResult(QString::number(arguments.value("a").toDouble() + arguments.value("b").toDouble()));
    if (name == "big") {
        QString text;
        const qint64 bytes = arguments.value("bytes").toInteger();
        for (int line = 1; text.size() < bytes; ++line)
            text += QStringLiteral("line %1 of a long MCP result\n").arg(line);
        text.truncate(bytes);
        return textResult(text);
    }
    if (name == "fail")
        return textResult("it broke", true);
    if (name == "sleep") {
        QThread::msleep(arguments.value("ms").toInt());
        return textResult("slept");
    }
    if (name == "env")
        return textResult(qEnvironmentVariable(arguments.value("name").toString().toLocal8Bit().constData()));
    if (name == "cwd")
        return textResult(QDir::currentPath());
    if (name == "pid")
        return textResult(QString::number(QCoreApplication::applicationPid()));
    if (name == "crash") {
        std::fprintf(stderr, "fake-mcp: crashing on purpose\n");
        std::fflush(stderr);
        _exit(3);
    }
    if (name == "lookup")
        return textResult("found " + arguments.value("kind").toString());
    return {};
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.contains("--fail-start")) {
        std::fprintf(stderr, "fake-mcp: cannot open the database\n");
        return 2;
    }
    const qsizetype versionAt = args.indexOf("--version");
    const QString version = versionAt > 0 ? args.value(versionAt + 1) : QString();
    const QJsonArray allTools = tools();

    std::string line;
    while (std::getline(std::cin, line)) {
        log(line);
        const QJsonObject message = QJsonDocument::fromJson(QByteArray::fromStdString(line)).object();
        const QString method = message.value("method").toString();
        const QJsonValue id = message.value("id");
        if (method == "initialize") {
            QJsonObject capabilities;
            if (!args.contains("--no-tools"))
                capabilities.insert("tools", QJsonObject{{"listChanged", true}});
            const QString asked = message.value("params").toObject().value("protocolVersion").toString();
            send(result(id, {{"protocolVersion", version.isEmpty() ? asked : version},
                             {"capabilities", capabilities},
                             {"serverInfo", QJsonObject{{"name", "fake-mcp"}, {"version", "1.0"}}}}));
        } else if (method == "tools/list") {
            const int start = message.value("params").toObject().value("cursor").toString().toInt();
            QJsonObject page{{"tools", QJsonArray()}};
            QJsonArray list;
            for (int i = start; i < start + 2 && i < allTools.size(); ++i)
                list.append(allTools.at(i));
            page.insert("tools", list);
            if (start + 2 < allTools.size())
                page.insert("nextCursor", QString::number(start + 2));
            send(result(id, page));
        } else if (method == "tools/call") {
            const QJsonObject params = message.value("params").toObject();
            const QString name = params.value("name").toString();
            if (name == "ping_me") {
                send({{"jsonrpc", "2.0"}, {"id", "server-1"}, {"method", "ping"}});
                std::string answer;
                if (!std::getline(std::cin, answer))
                    return 0;
                log(answer);
                const QJsonObject pong = QJsonDocument::fromJson(QByteArray::fromStdString(answer)).object();
                const bool ok = pong.value("id") == QJsonValue("server-1") && pong.contains("result");
                send(result(id, textResult(ok ? "pong received" : "no pong")));
                continue;
            }
            const QJsonObject answer = call(name, params.value("arguments").toObject());
            if (answer.isEmpty())
                send({{"jsonrpc", "2.0"},
                      {"id", id},
                      {"error", QJsonObject{{"code", -32602}, {"message", "Unknown tool: " + name}}}});
            else
                send(result(id, answer));
        } else if (!id.isUndefined() && !method.isEmpty()) {
            send({{"jsonrpc", "2.0"},
                  {"id", id},
                  {"error", QJsonObject{{"code", -32601}, {"message", "Method not found"}}}});
        }
    }
    return 0;
}
