#pragma once

#include "tools/tool.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QJsonArray>

namespace keen {

// edit_file: line edits addressed by read_file's `LINE:HASH` anchors (reference 2.2). Every operation is
// checked against one snapshot of the file, the unified diff is shown in the permission request, and the new
// content replaces the file atomically.
class EditFileTool final : public Tool
{
    Q_DECLARE_TR_FUNCTIONS(EditFileTool)

public:
    QString name() const override;
    QString description() const override;
    QJsonObject inputSchema() const override;
    QString validateInput(const QJsonObject &input) const override;
    ToolResult execute(const QJsonObject &input, ToolContext &context) override;
    bool isWriteTool() const override { return true; }

    // Applies ops to content (bottom-up, all or nothing). Returns the new content, or sets error.
    static QByteArray applyOperations(const QByteArray &content, const QJsonArray &ops, QString *error);
};

} // namespace keen
