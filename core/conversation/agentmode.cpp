#include "conversation/agentmode.h"

namespace keen {

QString agentModeName(AgentMode mode)
{
    switch (mode) {
    case AgentMode::Build:
        return QStringLiteral("build");
    case AgentMode::Plan:
        return QStringLiteral("plan");
    case AgentMode::Yolo:
        return QStringLiteral("yolo");
    }
    return QStringLiteral("build");
}

std::optional<AgentMode> agentModeFromName(const QString &name)
{
    const QString lower = name.trimmed().toLower();
    if (lower == QLatin1String("build"))
        return AgentMode::Build;
    if (lower == QLatin1String("plan"))
        return AgentMode::Plan;
    if (lower == QLatin1String("yolo"))
        return AgentMode::Yolo;
    return std::nullopt;
}

AgentMode nextAgentMode(AgentMode mode)
{
    switch (mode) {
    case AgentMode::Build:
        return AgentMode::Plan;
    case AgentMode::Plan:
        return AgentMode::Yolo;
    case AgentMode::Yolo:
        return AgentMode::Build;
    }
    return AgentMode::Build;
}

} // namespace keen
