#pragma once

#include <QByteArray>
#include <QString>
#include <QTextStream>

namespace keen {

// Large outputs (a 100,000-character reply, the JSON of 1,000 sessions) written once: as UTF-8 bytes straight
// to the stream's device when it has one (stdout), so they are neither copied into QTextStream's buffer nor
// decoded from UTF-8 for the stream to encode again. A stream on a string (tests) gets the text.
class StreamOutput
{
public:
    static void writeUtf8(QTextStream &stream, const QByteArray &utf8);
    static void writeText(QTextStream &stream, const QString &text);
};

} // namespace keen
