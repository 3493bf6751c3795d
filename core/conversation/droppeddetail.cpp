#include "conversation/droppeddetail.h"

namespace keen {

namespace {

constexpr std::pair<DroppedDetail::Kind, QLatin1StringView> kKindNames[] = {
    {DroppedDetail::Kind::Path, QLatin1StringView("path")},
    {DroppedDetail::Kind::Identifier, QLatin1StringView("identifier")},
    {DroppedDetail::Kind::Number, QLatin1StringView("number")},
    {DroppedDetail::Kind::Error, QLatin1StringView("error")},
};

} // namespace

QString DroppedDetail::kindName(Kind kind)
{
    for (const auto &[known, name] : kKindNames) {
        if (known == kind)
            return QString(name);
    }
    return {};
}

QJsonObject DroppedDetail::toJson() const
{
    return QJsonObject{{QStringLiteral("kind"), kindName(kind)},
                       {QStringLiteral("text"), text},
                       {QStringLiteral("excerpt"), excerpt}};
}

DroppedDetail DroppedDetail::fromJson(const QJsonObject &object)
{
    DroppedDetail detail;
    detail.kind = Kind::Identifier;
    const QString name = object.value(QStringLiteral("kind")).toString();
    for (const auto &[kind, known] : kKindNames) {
        if (name == known)
            detail.kind = kind;
    }
    detail.text = object.value(QStringLiteral("text")).toString();
    detail.excerpt = object.value(QStringLiteral("excerpt")).toString();
    return detail;
}

} // namespace keen
