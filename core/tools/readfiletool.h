#pragma once

#include "tools/tool.h"

#include <QByteArray>
#include <QCoreApplication>

namespace keen {

// read_file: a window of a text file as hash-anchored lines `N:HASH|text` (reference 2.2).
class ReadFileTool final : public Tool
{
    Q_DECLARE_TR_FUNCTIONS(ReadFileTool)

public:
    static constexpr qint64 MaxFileBytes = 25 * 1024 * 1024;
    static constexpr int DefaultLimit = 1000;
    static constexpr int MaxLineRunes = 1000;

    QString name() const override;
    QString description() const override;
    QJsonObject inputSchema() const override;
    QString validateInput(const QJsonObject &input) const override;
    ToolResult execute(const QJsonObject &input, ToolContext &context) override;

    // The whole file as bytes if it is a readable text file (exists, not a folder, at most 25 MB, no NUL
    // byte, valid UTF-8); otherwise an error message for the model. Shared with edit_file.
    static QString loadText(const QString &absolutePath, const QString &shownPath, QByteArray *bytes);
    // One line of the hashline view, long lines cut at MaxLineRunes.
    static QString formatLine(int number, QByteArrayView rawLine);
};

} // namespace keen
