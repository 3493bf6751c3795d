#include "session/jsonfields.h"

#include <algorithm>

namespace keen {

QString JsonFields::readString(const QJsonObject &object, QLatin1StringView key, Write write)
{
    const QJsonValue value = object.value(key);
    if (value.isUndefined()) {
        if (write == Write::Always)
            keepAbsent(key);
        return {};
    }
    if (!value.isString()) {
        keep(key, value);
        return {};
    }
    QString text = value.toString();
    if (text.isEmpty() && write == Write::OmitEmpty)
        keep(key, value);
    return text;
}

bool JsonFields::readBool(const QJsonObject &object, QLatin1StringView key)
{
    const QJsonValue value = object.value(key);
    if (value.isUndefined())
        return false;
    if (value.isBool() && value.toBool())
        return true;
    keep(key, value); // false written out, or not a boolean
    return false;
}

std::optional<qint64> JsonFields::readInteger(const QJsonObject &object, QLatin1StringView key)
{
    const QJsonValue value = object.value(key);
    if (value.isUndefined())
        return std::nullopt;
    const qint64 number = value.toInteger();
    if (!value.isDouble() || QJsonValue(number) != value) {
        keep(key, value); // a fraction, out of range, or not a number
        return std::nullopt;
    }
    return number;
}

void JsonFields::insertIfNotEmpty(QJsonObject &object, QLatin1StringView key, const QString &value)
{
    if (!value.isEmpty())
        object.insert(key, value);
}

QJsonValue JsonFields::readValue(const QJsonObject &object, QLatin1StringView key)
{
    return object.value(key);
}

void JsonFields::keepUnknown(const QJsonObject &object, std::initializer_list<QLatin1StringView> known)
{
    // The common case (only known fields) costs one count instead of a walk over the keys.
    qsizetype present = 0;
    for (const QLatin1StringView key : known)
        present += object.contains(key) ? 1 : 0;
    if (present == object.size())
        return;
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        const QString key = it.key();
        const bool isKnown =
            std::any_of(known.begin(), known.end(), [&key](QLatin1StringView name) { return key == name; });
        if (!isKnown)
            keep(key, it.value());
    }
}

void JsonFields::keep(const QString &key, const QJsonValue &value)
{
    m_kept.insert(key, value);
}

void JsonFields::keep(QLatin1StringView key, const QJsonValue &value)
{
    m_kept.insert(key, value);
}

void JsonFields::keepAbsent(QLatin1StringView key)
{
    m_absent.append(QString(key));
}

void JsonFields::applyTo(QJsonObject &object) const
{
    for (const QString &key : m_absent)
        object.remove(key);
    for (auto it = m_kept.constBegin(); it != m_kept.constEnd(); ++it)
        object.insert(it.key(), it.value());
}

} // namespace keen
