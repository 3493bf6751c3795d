#include "conversation/pin.h"

#include "conversation/tooloutputtext.h"

#include <QStringList>
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

QString Pin::headline() const
{
    const QString shown = shownText().trimmed();
    QString line = shown.section(QLatin1Char('\n'), 0, 0);
    // A dropped detail's excerpt begins with the lines before it ("read_file" above "path: file0.txt"): it is
    // named by the line that holds the detail (its source is "<kind> <detail>").
    if (const QString detail = source.section(QLatin1Char(' '), 1);
        kind == Kind::Detail && !detail.isEmpty()) {
        for (const QStringView candidate : QStringView(shown).split(QLatin1Char('\n'))) {
            if (candidate.contains(detail)) {
                line = candidate.trimmed().toString();
                break;
            }
        }
    }
    if (line.size() > 120)
        line = line.left(119) + QStringLiteral("…");
    return line;
}

QString Pin::shownText() const
{
    if (kind != Kind::ToolResult)
        return text;
    // The output as text already (bash), or what a tool returned as text, stays as it is.
    const QString shown = ToolOutputText::shown(text);
    return shown.trimmed().isEmpty() ? text : shown;
}

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
