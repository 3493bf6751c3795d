#include "headless/streamoutput.h"

#include <QIODevice>

namespace keen {

void StreamOutput::writeUtf8(QTextStream &stream, const QByteArray &utf8)
{
    if (QIODevice *device = stream.device()) {
        stream.flush(); // what the stream holds goes first
        device->write(utf8);
    } else {
        stream << QString::fromUtf8(utf8);
    }
}

void StreamOutput::writeText(QTextStream &stream, const QString &text)
{
    if (stream.device())
        writeUtf8(stream, text.toUtf8());
    else
        stream << text;
}

} // namespace keen
