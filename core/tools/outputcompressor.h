#pragma once

#include <QJsonValue>
#include <QString>

namespace keen {

// The lossless, LLM-facing form of a tool's output (reference 3.6). The raw output still goes to the UI,
// tool_end and the transcript; this one goes to the provider and to retained tool history.
class OutputCompressor
{
public:
    static QJsonValue forLlm(const QString &toolName, const QJsonValue &output);

    // Longest common folder prefix of paths, cut after the last '/' or '\' (so prefix + relative == path).
    static QString commonDirectoryPrefix(const QStringList &paths);
};

} // namespace keen
