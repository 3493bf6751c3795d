#include "tools/toolregistry.h"

namespace keen {

QString Tool::validateInput(const QJsonObject &) const
{
    return {};
}

void ToolRegistry::add(std::shared_ptr<Tool> tool)
{
    const QString name = tool->name();
    m_tools[name] = std::move(tool);
}

std::shared_ptr<Tool> ToolRegistry::find(const QString &name) const
{
    const auto it = m_tools.find(name);
    return it == m_tools.end() ? nullptr : it->second;
}

QList<std::shared_ptr<Tool>> ToolRegistry::all() const
{
    QList<std::shared_ptr<Tool>> tools;
    for (const auto &[name, tool] : m_tools)
        tools.append(tool);
    return tools;
}

QStringList ToolRegistry::names() const
{
    QStringList names;
    for (const auto &[name, tool] : m_tools)
        names.append(name);
    return names;
}

ToolSpecList ToolRegistry::specs() const
{
    ToolSpecList specs;
    specs.reserve(qsizetype(m_tools.size()));
    for (const auto &[name, tool] : m_tools)
        specs.append(ToolSpec{name, tool->description(), tool->inputSchema()});
    return specs;
}

ToolRegistry ToolRegistry::without(const QStringList &names) const
{
    ToolRegistry copy;
    copy.m_context = m_context;
    for (const auto &[name, tool] : m_tools) {
        if (!names.contains(name))
            copy.m_tools[name] = tool;
    }
    return copy;
}

} // namespace keen
