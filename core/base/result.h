#pragma once

#include <QString>

#include <optional>
#include <utility>

namespace keen {

// A value or a user-readable error. Core APIs return this; the UI shows error() as it is.
template<typename T> class Result
{
public:
    Result(T value)
        : m_value(std::move(value))
    {}
    static Result failure(QString error)
    {
        Result result;
        result.m_error = std::move(error);
        return result;
    }

    bool ok() const { return m_value.has_value(); }
    explicit operator bool() const { return ok(); }
    const T &value() const & { return *m_value; }
    T &value() & { return *m_value; }
    T &&value() && { return std::move(*m_value); }
    const T *operator->() const { return &*m_value; }
    T *operator->() { return &*m_value; }
    const T &operator*() const { return *m_value; }
    T &operator*() { return *m_value; }
    const QString &error() const { return m_error; }

private:
    Result() = default;
    std::optional<T> m_value;
    QString m_error;
};

template<> class Result<void>
{
public:
    Result() = default;
    static Result failure(QString error)
    {
        Result result;
        result.m_error = std::move(error);
        result.m_failed = true;
        return result;
    }
    bool ok() const { return !m_failed; }
    explicit operator bool() const { return ok(); }
    const QString &error() const { return m_error; }

private:
    QString m_error;
    bool m_failed = false;
};

} // namespace keen
