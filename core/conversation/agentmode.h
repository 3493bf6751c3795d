#pragma once

#include <QString>

#include <optional>

namespace keen {

// build: the default, writes ask. plan: write tools refused at execution. yolo: no prompts (the guard holds).
enum class AgentMode { Build, Plan, Yolo };

QString agentModeName(AgentMode mode);
std::optional<AgentMode> agentModeFromName(const QString &name);
AgentMode nextAgentMode(AgentMode mode); // build -> plan -> yolo -> build

} // namespace keen
