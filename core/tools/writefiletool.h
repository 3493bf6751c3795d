#pragma once

#include "tools/tool.h"

#include <QCoreApplication>

namespace keen {

// write_file: creates or overwrites a file atomically, creating parent folders (reference 2.2).
class WriteFileTool final : public Tool
{
    Q_DECLARE_TR_FUNCTIONS(WriteFileTool)

public:
    QString name() const override;
    QString description() const override;
    QJsonObject inputSchema() const override;
    QString validateInput(const QJsonObject &input) const override;
    ToolResult execute(const QJsonObject &input, ToolContext &context) override;
    bool isWriteTool() const override { return true; }
};

} // namespace keen
