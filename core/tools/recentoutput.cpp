#include "tools/recentoutput.h"

namespace keen {

void RecentOutput::append(const QByteArray &data)
{
    m_kept += data;
    if (m_kept.size() <= Capacity)
        return;
    // Drop whole lines from the front until what is kept fits; a single line longer than the capacity
    // keeps its end, cut after a UTF-8 lead byte boundary.
    qsizetype cut = m_kept.size() - Capacity;
    const qsizetype newline = m_kept.indexOf('\n', cut - 1);
    if (newline >= 0 && newline + 1 < m_kept.size()) {
        cut = newline + 1;
    } else {
        while (cut < m_kept.size() && (quint8(m_kept.at(cut)) & 0xC0) == 0x80)
            ++cut;
    }
    m_earlierLines += m_kept.left(cut).count('\n');
    m_kept.remove(0, cut);
}

} // namespace keen
