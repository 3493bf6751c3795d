#include "conversation/droppeddetail.h"

#include <QRegularExpression>

namespace keen {

namespace {

constexpr std::pair<DroppedDetail::Kind, QLatin1StringView> kKindNames[] = {
    {DroppedDetail::Kind::Path, QLatin1StringView("path")},
    {DroppedDetail::Kind::Identifier, QLatin1StringView("identifier")},
    {DroppedDetail::Kind::Number, QLatin1StringView("number")},
    {DroppedDetail::Kind::Error, QLatin1StringView("error")},
};

} // namespace

QString DroppedDetail::readable(const QString &text)
{
    // A run of marks that opens after a space or punctuation and touches a word, closed by the same run
    // that touches a word and is followed by a space or punctuation; inner ones first. A lone mark (a
    // bullet, a glob such as *.cpp, snake_case) is no emphasis and stays.
    static const QRegularExpression emphasis(
        QStringLiteral(R"((?<![\w*_~\\])(\*{1,3}|_{1,3}|~~)(?=[^\s*_~])([^\n]*?[^\s*_~\\])\1(?![\w*_~]))"));
    QString result = text;
    for (int pass = 0; pass < 3; ++pass) {
        QString stripped = result;
        stripped.replace(emphasis, QStringLiteral("\\2"));
        if (stripped == result)
            break;
        result = stripped;
    }
    return result;
}

Pin DroppedDetail::originalPin() const
{
    Pin pin;
    pin.kind = Pin::Kind::Detail;
    pin.text = excerpt.isEmpty() ? text : excerpt;
    pin.source = kindName(kind) + QStringLiteral(" ") + text.left(80);
    return pin;
}

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
