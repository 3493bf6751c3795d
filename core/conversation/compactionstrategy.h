#pragma once

#include <QCoreApplication>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace keen {

// How a compaction got its request(s) under the input budget (issue 16, "no dead end at 100%"). The seed's
// single request is the default; the others are used only when that request would not fit.
struct CompactionStrategy
{
    Q_DECLARE_TR_FUNCTIONS(CompactionStrategy)

public:
    // The request was rebuilt from the conversation as text, without the tool definitions; every other field
    // is only set on such a request. Alone it is a rebuild that fit one part (the audit of 2026-12-06: the
    // definitions alone had taken the seed's request over the budget), still recorded and shown.
    bool rebuilt = false;
    int slices = 1;           // summary requests sent, oldest part first, each merging the summary so far
    int cutOutputs = 0;       // tool outputs (or messages) cut to their head and tail to fit one request
    int cutMessages = 0;      // of those, messages (a pasted log), so the row can say which
    qint64 cutCharacters = 0; // characters taken out of them
    int droppedOutputs = 0;   // oldest tool outputs left out entirely, as a last resort
    qint64 droppedCharacters = 0;
    QStringList dropped; // which: "read_file big.txt (58,000 characters)", oldest first

    bool operator==(const CompactionStrategy &) const = default;
    // The seed's one request with the whole history: nothing to record.
    bool isSingleRequest() const { return !rebuilt && slices <= 1 && cutOutputs == 0 && droppedOutputs == 0; }
    // For the checkpoint row: "summarised in 3 parts; 1 tool output cut by 52,000 characters"; what was
    // left out is named; "rebuilt as one request without the tool definitions" for a rebuild that changed
    // nothing else. Empty for the single request.
    QString describe() const;
    // {"slices","cut_outputs","cut_messages"?,"cut_characters","dropped_outputs","dropped_characters",
    // "dropped"?}; empty when single. A non-empty object read back is a rebuilt request.
    QJsonObject toJson() const;
    static CompactionStrategy fromJson(const QJsonObject &object);
};

} // namespace keen
