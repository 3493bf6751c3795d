#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QLatin1StringView>
#include <QStringList>

#include <initializer_list>
#include <optional>

namespace keen {

// The part of one JSON object of the transcript that its typed value does not model: fields it does not
// know, and known fields in a form its toJson() would not write back the same way (an empty string written
// out, a number of another type, a field the typed value always writes that was missing). Reading records
// them; writing puts them back on top of the typed fields, so a transcript written by the reference agent or
// a newer Keen survives load and save unchanged (reference 5.2).
class JsonFields
{
public:
    // How the typed value writes a field.
    enum class Write {
        Always,    // always written, so a missing field must stay missing
        OmitEmpty, // written only when not empty / not false, so an empty one that was there must come back
    };

    // Readers: one known field of object each. They record whatever the typed value would not reproduce.
    QString readString(const QJsonObject &object, QLatin1StringView key, Write write);
    bool readBool(const QJsonObject &object, QLatin1StringView key); // written only when true
    std::optional<qint64> readInteger(const QJsonObject &object, QLatin1StringView key);
    // A field kept as JSON; undefined when absent. Written back whenever it is not undefined.
    static QJsonValue readValue(const QJsonObject &object, QLatin1StringView key);
    // Writer of an OmitEmpty string field: value goes in only when it is not empty.
    static void insertIfNotEmpty(QJsonObject &object, QLatin1StringView key, const QString &value);
    // An object the typed value re-creates with toJson(): kept as it was when that would differ.
    template<typename T> std::optional<T> readObject(const QJsonObject &object, QLatin1StringView key)
    {
        const QJsonValue value = object.value(key);
        if (value.isUndefined())
            return std::nullopt;
        if (!value.isObject()) {
            keep(key, value);
            return std::nullopt;
        }
        T typed = T::fromJson(value.toObject());
        if (typed.toJson() != value.toObject())
            keep(key, value);
        return typed;
    }
    // Every field of object that is not in known is kept as it is.
    void keepUnknown(const QJsonObject &object, std::initializer_list<QLatin1StringView> known);

    void keep(const QString &key, const QJsonValue &value);
    void keep(QLatin1StringView key, const QJsonValue &value);
    void keepAbsent(QLatin1StringView key);
    QJsonValue value(const QString &key) const { return m_kept.value(key); }
    bool isEmpty() const { return m_kept.isEmpty() && m_absent.isEmpty(); }

    // Puts the kept fields on top of what the typed value wrote.
    void applyTo(QJsonObject &object) const;

    bool operator==(const JsonFields &) const = default;

private:
    QJsonObject m_kept;
    QStringList m_absent;
};

} // namespace keen
