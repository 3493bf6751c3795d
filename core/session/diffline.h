#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

namespace keen {

// One line of a file change: a transcript "diff" item's EditDiffLine (reference 5.2, Go default JSON names
// {Kind, OldLineNum, NewLineNum, Content}), also what the tool and permission cards show (reference 6.6).
struct DiffLine
{
    enum class Kind { Context = 0, Added = 1, Removed = 2, Hunk = 3 };
    Kind kind = Kind::Context;
    int oldLine = 0;
    int newLine = 0;
    QString content;

    bool operator==(const DiffLine &) const = default;

    // Parses a unified diff: file headers skipped, hunk headers kept, line numbers tracked. With maxLines,
    // only the first maxLines are kept and the others counted in *omitted (a card shows a few hundred lines
    // of a diff that can have 200,000).
    static QList<DiffLine> parseUnified(const QString &diff, qsizetype maxLines = -1,
                                        qsizetype *omitted = nullptr);

    QJsonObject toJson() const;
    // Lenient: a missing or odd field reads as its zero value (the transcript item keeps the original).
    static DiffLine fromJson(const QJsonObject &object);
};

} // namespace keen
