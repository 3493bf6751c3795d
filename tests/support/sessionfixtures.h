#pragma once

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace keen::test {

// Writes a transcript in the store's layout (<root>/<namespace>/<id>/transcript_events.jsonl) line by line,
// without SessionStore, so session tests control every byte and every mtime.
class TranscriptWriter
{
public:
    TranscriptWriter(const QString &sessionsRoot, const QString &workspace, const QString &id = QString(),
                     const QDateTime &createdAt = QDateTime::currentDateTimeUtc());

    QString id() const { return m_id; }
    QString directory() const { return m_directory; }
    QString path() const { return m_path; }
    quint64 lastSeq() const { return m_seq; }

    quint64 user(const QString &text);
    quint64 assistant(const QString &text);
    // An assistant turn with text, then one tool call with its input and output (text or JSON).
    quint64 assistantWithTool(const QString &text, const QString &tool, const QJsonObject &input,
                              const QJsonValue &output);
    quint64 interrupted(const QString &partialText);
    quint64 failed(const QString &partialText, const QString &error);
    // Manual: visible summary transcript and status "Context compacted."; automatic: empty status.
    quint64 compaction(const QString &status, const QString &summary,
                       const QString &visibleTranscript = QString());
    quint64 appendPayload(const QString &kind, const QJsonObject &payload);
    void appendRawBytes(const QByteArray &bytes);
    void setModified(const QDateTime &when) const;

private:
    QString m_id;
    QString m_directory;
    QString m_path;
    quint64 m_seq = 0;
};

} // namespace keen::test
