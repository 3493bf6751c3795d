#pragma once

#include "base/result.h"

#include <QByteArray>
#include <QString>

namespace keen {

// A tool result too long to give the model inline (a fetched page, an MCP tool's answer): its start goes
// inline and the whole text into a private file under the data folder, which read_file may read.
class TextArtifact
{
public:
    TextArtifact() = delete;

    // The start of the UTF-8 text, at most maxBytes, cut at a line break when one is in its second half,
    // never inside a character.
    static QString head(const QByteArray &utf8, qsizetype maxBytes);
    // <dataDir>/<folder>/<prefix>-<16 hex of the SHA-256 of key and content>.txt
    static QString path(const QString &dataDir, const QString &folder, const QString &prefix,
                        const QString &key, const QString &content);
    // Writes the file atomically, readable by its owner only (its folder too).
    static Result<void> save(const QString &path, const QByteArray &utf8);
};

} // namespace keen
