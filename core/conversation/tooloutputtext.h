#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace keen {

// A tool's result as its card in the chat shows it, not as the JSON the model got: a read's file text
// without the "NUMBER:HASH|" prefixes, a command's output, a search's matches, a tool's error. Pins and the
// Markdown export read results this way.
struct ToolOutputText
{
    // The text for a result of a known shape, else empty.
    static QString readable(const QJsonObject &output);
    // A command's output: stdout, then stderr on a line of its own, without trailing line breaks.
    static QString commandOutput(const QJsonObject &output);
    // readable(), else the object's plain values one "key: value" a line; a string holding a JSON object is
    // read as that object, any other string as it is.
    static QString shown(const QJsonValue &output);
    // The result as an object: the object itself, or the object a string of JSON text holds (a result kept
    // as text in a transcript or a pin); empty for anything else.
    static QJsonObject asObject(const QJsonValue &output);
};

} // namespace keen
