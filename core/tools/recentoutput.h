#pragma once

#include <QByteArray>
#include <QString>

namespace keen {

// The last lines of a running command's output, for its card while it runs: stdout and stderr appended as
// they arrive, at most about Capacity bytes kept (whole lines, so a cut never splits a character), and a
// count of the lines dropped before them. Each append costs what it appends, whatever the command printed
// before.
class RecentOutput
{
public:
    static constexpr qsizetype Capacity = 8 * 1024;

    void append(const QByteArray &data);
    bool isEmpty() const { return m_kept.isEmpty(); }
    QString text() const { return QString::fromUtf8(m_kept); }
    qint64 earlierLines() const { return m_earlierLines; }

private:
    QByteArray m_kept;
    qint64 m_earlierLines = 0;
};

} // namespace keen
