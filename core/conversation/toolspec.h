#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

namespace keen {

// What a provider protocol needs to offer one tool to the model: its definition, nothing it runs. The tool
// loop turns the tool registry into a list of these (sorted by name, so definitions stay byte-stable).
struct ToolSpec
{
    QString name;
    QString description;
    QJsonObject inputSchema; // JSON Schema of the input object

    bool operator==(const ToolSpec &) const = default;
};

using ToolSpecList = QList<ToolSpec>;

} // namespace keen
