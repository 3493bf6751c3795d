#pragma once

#include "conversation/toolspec.h"
#include "tools/tool.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <map>
#include <memory>

namespace keen {

// The tools offered to the model. all() is sorted by name so tool definitions stay byte-stable.
class ToolRegistry
{
public:
    void add(std::shared_ptr<Tool> tool);
    std::shared_ptr<Tool> find(const QString &name) const;
    QList<std::shared_ptr<Tool>> all() const;
    QStringList names() const;
    // The definitions a provider protocol offers the model, sorted by name.
    ToolSpecList specs() const;
    ToolRegistry without(const QStringList &names) const;
    bool isEmpty() const { return m_tools.empty(); }
    int size() const { return int(m_tools.size()); }

    // The environment the tools run in (workspace, guard, permissions...). The tool loop copies it for each
    // call and sets the call's cancellation token.
    void setContext(const ToolContext &context) { m_context = context; }
    const ToolContext &context() const { return m_context; }

private:
    std::map<QString, std::shared_ptr<Tool>> m_tools;
    ToolContext m_context;
};

} // namespace keen
