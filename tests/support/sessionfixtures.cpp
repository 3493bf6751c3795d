#include "sessionfixtures.h"

#include "session/sessionstore.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QUuid>

namespace keen::test {

TranscriptWriter::TranscriptWriter(const QString &sessionsRoot, const QString &workspace, const QString &id,
                                   const QDateTime &createdAt)
    : m_id(id.isEmpty() ? QUuid::createUuid().toString(QUuid::WithoutBraces) : id)
{
    const QString absolute = QDir::cleanPath(QDir(workspace).absolutePath());
    m_directory = QDir(sessionsRoot).filePath(SessionStore::namespaceFor(absolute) + QLatin1Char('/') + m_id);
    m_path = m_directory + QStringLiteral("/transcript_events.jsonl");
    QDir().mkpath(m_directory);
    appendPayload(QStringLiteral("session_started"),
                  QJsonObject{{QStringLiteral("session_id"), m_id},
                              {QStringLiteral("created_at"), createdAt.toUTC().toString(Qt::ISODateWithMs)},
                              {QStringLiteral("cwd"), absolute}});
}

quint64 TranscriptWriter::user(const QString &text)
{
    return appendPayload(QStringLiteral("user_message"), QJsonObject{{QStringLiteral("content"), text}});
}

quint64 TranscriptWriter::assistant(const QString &text)
{
    const QJsonArray transcript{
        QJsonObject{{QStringLiteral("kind"), QStringLiteral("text")}, {QStringLiteral("content"), text}}};
    return appendPayload(
        QStringLiteral("assistant_turn"),
        QJsonObject{{QStringLiteral("transcript"), transcript}, {QStringLiteral("message"), text}});
}

quint64 TranscriptWriter::assistantWithTool(const QString &text, const QString &tool,
                                            const QJsonObject &input, const QJsonValue &output)
{
    const QJsonArray transcript{
        QJsonObject{{QStringLiteral("kind"), QStringLiteral("text")}, {QStringLiteral("content"), text}},
        QJsonObject{{QStringLiteral("kind"), QStringLiteral("tool_start")},
                    {QStringLiteral("tool_start"),
                     QJsonObject{{QStringLiteral("name"), tool}, {QStringLiteral("input"), input}}}},
        QJsonObject{{QStringLiteral("kind"), QStringLiteral("tool_end")},
                    {QStringLiteral("tool_end"), QJsonObject{{QStringLiteral("name"), tool},
                                                             {QStringLiteral("input"), input},
                                                             {QStringLiteral("output"), output},
                                                             {QStringLiteral("duration_ns"), 1200000}}}},
    };
    return appendPayload(
        QStringLiteral("assistant_turn"),
        QJsonObject{{QStringLiteral("transcript"), transcript}, {QStringLiteral("message"), text}});
}

quint64 TranscriptWriter::interrupted(const QString &partialText)
{
    const QJsonArray transcript{QJsonObject{{QStringLiteral("kind"), QStringLiteral("text")},
                                            {QStringLiteral("content"), partialText}}};
    return appendPayload(QStringLiteral("assistant_turn"),
                         QJsonObject{{QStringLiteral("transcript"), transcript},
                                     {QStringLiteral("message"), partialText},
                                     {QStringLiteral("interrupted"), true}});
}

quint64 TranscriptWriter::failed(const QString &partialText, const QString &error)
{
    const QJsonArray transcript{QJsonObject{{QStringLiteral("kind"), QStringLiteral("text")},
                                            {QStringLiteral("content"), partialText}}};
    return appendPayload(QStringLiteral("assistant_turn"),
                         QJsonObject{{QStringLiteral("transcript"), transcript},
                                     {QStringLiteral("message"), partialText},
                                     {QStringLiteral("error"), error}});
}

quint64 TranscriptWriter::compaction(const QString &status, const QString &summary,
                                     const QString &visibleTranscript)
{
    QJsonObject payload{
        {QStringLiteral("status"), status},
        {QStringLiteral("messages"),
         QJsonArray{QJsonObject{{QStringLiteral("Role"), QStringLiteral("user")},
                                {QStringLiteral("Content"), summary},
                                {QStringLiteral("TurnMemory"), QJsonValue::Null}}}},
    };
    if (!visibleTranscript.isEmpty())
        payload.insert(QStringLiteral("transcript"),
                       QJsonArray{QJsonObject{{QStringLiteral("kind"), QStringLiteral("text")},
                                              {QStringLiteral("content"), visibleTranscript}}});
    return appendPayload(QStringLiteral("compaction_applied"), payload);
}

quint64 TranscriptWriter::appendPayload(const QString &kind, const QJsonObject &payload)
{
    ++m_seq;
    const QJsonObject line{
        {QStringLiteral("seq"), qint64(m_seq)}, {QStringLiteral("kind"), kind}, {kind, payload}};
    appendRawBytes(QJsonDocument(line).toJson(QJsonDocument::Compact) + '\n');
    return m_seq;
}

void TranscriptWriter::appendRawBytes(const QByteArray &bytes)
{
    QFile file(m_path);
    if (file.open(QIODevice::WriteOnly | QIODevice::Append))
        file.write(bytes);
}

void TranscriptWriter::setModified(const QDateTime &when) const
{
    QFile file(m_path);
    if (file.open(QIODevice::ReadWrite))
        file.setFileTime(when, QFileDevice::FileModificationTime);
}

} // namespace keen::test
