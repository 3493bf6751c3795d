#pragma once

#include "tools/tool.h"

#include <QCoreApplication>

namespace keen {

// bash: runs `bash -c <command>` in the workspace (reference 2.2). The command gets its own process group so
// cancelling kills everything it started. Output over 64 KiB per stream is cut to a head and tail preview,
// with the full text saved under <data dir>/bash.
class BashTool final : public Tool
{
    Q_DECLARE_TR_FUNCTIONS(BashTool)

public:
    static constexpr int DefaultTimeoutMs = 300 * 1000;
    static constexpr qint64 InlineLimit = 64 * 1024;
    static constexpr qint64 HeadBytes = 32 * 1024;
    static constexpr qint64 TailBytes = 16 * 1024;
    // How often a running command's output so far is reported (ToolContext::outputProgress), at most.
    static constexpr qint64 ProgressIntervalMs = 250;

    QString name() const override;
    QString description() const override;
    QJsonObject inputSchema() const override;
    QString validateInput(const QJsonObject &input) const override;
    ToolResult execute(const QJsonObject &input, ToolContext &context) override;

    // Tests shorten the 300 s limit.
    void setTimeoutMs(int timeoutMs) { m_timeoutMs = timeoutMs; }

private:
    int m_timeoutMs = DefaultTimeoutMs;
};

} // namespace keen
