#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QList>

namespace keen {

// A list of values that each have toJson() as a JSON array, in order.
template<typename Value> QJsonArray toJsonArray(const QList<Value> &values)
{
    QJsonArray array;
    for (const Value &value : values)
        array.append(value.toJson());
    return array;
}

// The values of a JSON array read with Value::fromJson(QJsonObject); an element that is not an object reads
// as an empty object, which each fromJson turns into its empty value.
template<typename Value> QList<Value> fromJsonArray(const QJsonArray &array)
{
    QList<Value> values;
    values.reserve(array.size());
    for (const QJsonValue &element : array)
        values.append(Value::fromJson(element.toObject()));
    return values;
}

} // namespace keen
