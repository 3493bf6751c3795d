#include "workloads.h"

#include "sessionfixtures.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace keen::test {

namespace {

QByteArray sse(const QJsonObject &object)
{
    return "data: " + QJsonDocument(object).toJson(QJsonDocument::Compact) + "\n\n";
}

QJsonObject choice(const QJsonObject &delta, const QJsonValue &finish = QJsonValue::Null)
{
    return QJsonObject{
        {QStringLiteral("choices"), QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
                                                           {QStringLiteral("delta"), delta},
                                                           {QStringLiteral("finish_reason"), finish}}}}};
}

} // namespace

QString Workloads::markdownReply(qsizetype chars)
{
    QString text;
    text.reserve(chars + 2048);
    for (int section = 1; text.size() < chars; ++section) {
        text += QStringLiteral("## Step %1: the parser\n\n").arg(section);
        text += QStringLiteral("The function `parseLine(%1)` reads one line; größer → kleiner, naïve café. "
                               "It returns **a value** or an *error*, and `Result<T>` carries it.\n\n")
                    .arg(section);
        text += QStringLiteral("- first, call `open()`\n- then read %1 bytes\n- finally `close()`\n\n")
                    .arg(section);
        if (section % 3 == 0)
            text += QStringLiteral("| name | bytes |\n|---|---|\n| a.cpp | %1 |\n| b.cpp | %2 |\n\n")
                        .arg(section * 10)
                        .arg(section * 20);
        text += QStringLiteral(
                    "```cpp\nint parse%1(const QString &line)\n{\n    return line.size() * %1;\n}\n```\n\n")
                    .arg(section);
    }
    text.truncate(chars);
    return text;
}

QJsonObject Workloads::databaseQuestion()
{
    return QJsonObject{
        {QStringLiteral("questions"),
         QJsonArray{QJsonObject{{QStringLiteral("question"), QStringLiteral("Which database?")},
                                {QStringLiteral("options"),
                                 QJsonArray{QStringLiteral("SQLite"), QStringLiteral("Postgres")}}}}}};
}

QStringList Workloads::chunks(const QString &text, int chunkChars)
{
    QStringList pieces;
    pieces.reserve(text.size() / chunkChars + 1);
    for (qsizetype at = 0; at < text.size(); at += chunkChars)
        pieces.append(text.mid(at, chunkChars));
    return pieces;
}

QByteArray Workloads::chatCompletionsSse(const QStringList &pieces)
{
    QByteArray body;
    for (const QString &piece : pieces)
        body += sse(choice(QJsonObject{{QStringLiteral("content"), piece}}));
    body += sse(choice(QJsonObject(), QStringLiteral("stop")));
    body += sse(QJsonObject{{QStringLiteral("choices"), QJsonArray()},
                            {QStringLiteral("usage"), QJsonObject{{QStringLiteral("prompt_tokens"), 10},
                                                                  {QStringLiteral("completion_tokens"), 5},
                                                                  {QStringLiteral("total_tokens"), 15}}}});
    body += "data: [DONE]\n\n";
    return body;
}

QByteArray Workloads::chatCompletionsToolCallSse(const QStringList &preamble, const QString &callId,
                                                 const QString &toolName, const QJsonObject &arguments)
{
    QByteArray body;
    for (const QString &piece : preamble)
        body += sse(choice(QJsonObject{{QStringLiteral("content"), piece}}));
    const QJsonObject call{
        {QStringLiteral("index"), 0},
        {QStringLiteral("id"), callId},
        {QStringLiteral("type"), QStringLiteral("function")},
        {QStringLiteral("function"),
         QJsonObject{{QStringLiteral("name"), toolName},
                     {QStringLiteral("arguments"),
                      QString::fromUtf8(QJsonDocument(arguments).toJson(QJsonDocument::Compact))}}}};
    body += sse(choice(QJsonObject{{QStringLiteral("tool_calls"), QJsonArray{call}}}));
    body += sse(choice(QJsonObject(), QStringLiteral("tool_calls")));
    body += sse(QJsonObject{{QStringLiteral("choices"), QJsonArray()},
                            {QStringLiteral("usage"), QJsonObject{{QStringLiteral("prompt_tokens"), 20},
                                                                  {QStringLiteral("completion_tokens"), 7},
                                                                  {QStringLiteral("total_tokens"), 27}}}});
    body += "data: [DONE]\n\n";
    return body;
}

QString Workloads::writeBigSession(const QString &sessionsRoot, const QString &workspace, int events,
                                   int bytesPerEvent)
{
    TranscriptWriter writer(sessionsRoot, workspace);
    const QString paragraph = markdownReply(qMax(200, bytesPerEvent - 400));
    int written = 1; // session_started
    for (int turn = 0; written < events; ++turn) {
        writer.user(
            QStringLiteral("Question %1: please look at `src/file%1.cpp` and fix the parser.").arg(turn));
        ++written;
        if (written >= events)
            break;
        if (turn > 0 && turn % 1000 == 0) {
            writer.compaction(QStringLiteral("Context compacted."),
                              QStringLiteral("## Goal\nFix the parser (turn %1).").arg(turn),
                              QStringLiteral("## Goal\nFix the parser (turn %1).").arg(turn));
            ++written;
            continue;
        }
        if (turn % 2 == 0)
            writer.assistantWithTool(
                paragraph, QStringLiteral("read_file"),
                QJsonObject{{QStringLiteral("path"), QStringLiteral("src/file%1.cpp").arg(turn)}},
                QStringLiteral("int main() { return %1; }\n").arg(turn).repeated(8));
        else
            writer.assistant(paragraph);
        ++written;
    }
    return writer.path();
}

} // namespace keen::test
