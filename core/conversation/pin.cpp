#include "conversation/pin.h"

#include <QUuid>

namespace keen {

namespace {

constexpr std::pair<Pin::Kind, QLatin1StringView> kKindNames[] = {
    {Pin::Kind::Note, QLatin1StringView("note")},
    {Pin::Kind::Message, QLatin1StringView("message")},
    {Pin::Kind::CodeBlock, QLatin1StringView("code_block")},
    {Pin::Kind::ToolResult, QLatin1StringView("tool_result")},
    {Pin::Kind::Detail, QLatin1StringView("detail")},
};

} // namespace

QString Pin::kindName(Kind kind)
{
    for (const auto &[known, name] : kKindNames) {
        if (known == kind)
            return QString(name);
    }
    return {};
}

std::optional<Pin::Kind> Pin::kindFromName(const QString &name)
{
    for (const auto &[kind, known] : kKindNames) {
        if (name == known)
            return kind;
    }
    return std::nullopt;
}

QString Pin::newId()
{
    return QStringLiteral("pin-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
}

} // namespace keen
