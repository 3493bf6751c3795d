#pragma once

#include "tools/tool.h"

#include <QCoreApplication>

namespace keen {

// grep: regular-expression search through files (reference 2.2); at most 1000 matches, each with the
// line's hashline anchor hash so the model can edit without re-reading. Binary and gitignored files are
// skipped.
class GrepTool final : public Tool
{
    Q_DECLARE_TR_FUNCTIONS(GrepTool)

public:
    static constexpr int MaxMatches = 1000;

    QString name() const override;
    QString description() const override;
    QJsonObject inputSchema() const override;
    QString validateInput(const QJsonObject &input) const override;
    ToolResult execute(const QJsonObject &input, ToolContext &context) override;
};

} // namespace keen
