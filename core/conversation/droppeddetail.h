#pragma once

#include "conversation/pin.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace keen {

// What a compaction's summary left out (issue 16, "what was dropped"): the file paths, identifiers, numbers
// and error messages of the compacted range that the summary does not mention. Deterministic, no model call:
// regular expressions over the messages' text and tool outputs, each hit with the excerpt around it so it can
// be pinned as it was.
struct DroppedDetail
{
    enum class Kind { Path, Identifier, Number, Error };
    Kind kind = Kind::Path;
    QString text;    // the path, identifier, number or error line
    QString excerpt; // the lines around its first occurrence
    bool operator==(const DroppedDetail &) const = default;

    // A detail's text or excerpt as the person reads it in the chat and the list: without the Markdown
    // emphasis marks around words (*a*, **a**, _a_, __a__, ~~a~~). What is pinned stays as it was.
    static QString readable(const QString &text);

    // The pin "Pin the Original" makes of it (the window's list, `run --pin-dropped`): the excerpt verbatim,
    // named by the detail.
    Pin originalPin() const;

    static QString kindName(Kind kind); // path, identifier, number, error
    // {"kind","text","excerpt"}; a kind this app does not know reads as an identifier.
    QJsonObject toJson() const;
    static DroppedDetail fromJson(const QJsonObject &object);
};

} // namespace keen
