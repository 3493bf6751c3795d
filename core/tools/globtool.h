#pragma once

#include "tools/tool.h"

#include <QCoreApplication>

namespace keen {

// glob: files whose path under a base folder matches a pattern (reference 2.2); at most 1000, gitignored
// and guarded paths left out.
class GlobTool final : public Tool
{
    Q_DECLARE_TR_FUNCTIONS(GlobTool)

public:
    static constexpr int MaxFiles = 1000;

    QString name() const override;
    QString description() const override;
    QJsonObject inputSchema() const override;
    QString validateInput(const QJsonObject &input) const override;
    ToolResult execute(const QJsonObject &input, ToolContext &context) override;
};

} // namespace keen
