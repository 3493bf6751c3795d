#pragma once

#include "tools/tool.h"

#include <QCoreApplication>

namespace keen {

// ask_user: puts 1-10 multiple-choice questions to the person (reference 2.2). Only where a person can
// answer; the first option of each question is the recommendation.
class AskUserTool final : public Tool
{
    Q_DECLARE_TR_FUNCTIONS(AskUserTool)

public:
    QString name() const override;
    QString description() const override;
    QJsonObject inputSchema() const override;
    QString validateInput(const QJsonObject &input) const override;
    ToolResult execute(const QJsonObject &input, ToolContext &context) override;
};

} // namespace keen
