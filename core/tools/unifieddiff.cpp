#include "tools/unifieddiff.h"

#include <QStringList>

#include <dtl/dtl.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace keen {

namespace {

QStringList toLines(const QString &text)
{
    if (text.isEmpty())
        return {};
    QStringList lines = text.split(QLatin1Char('\n'));
    if (text.endsWith(QLatin1Char('\n')))
        lines.removeLast();
    for (QString &line : lines) {
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
    }
    return lines;
}

std::vector<std::string> toStd(const QStringList &lines, qsizetype from, qsizetype to)
{
    std::vector<std::string> out;
    out.reserve(size_t(to - from));
    for (qsizetype i = from; i < to; ++i)
        out.push_back(lines.at(i).toStdString());
    return out;
}

struct Entry
{
    int type; // dtl::SES_COMMON, SES_ADD or SES_DELETE
    const std::string *text;
};

QString range(long long start, long long count)
{
    // GNU diff: an empty range names the line before it.
    return QStringLiteral("%1,%2").arg(count == 0 ? start - 1 : start).arg(count);
}

} // namespace

QString UnifiedDiff::make(const QString &label, const QString &oldText, const QString &newText, bool created,
                          int context)
{
    if (oldText == newText)
        return {};
    const QStringList oldLines = toLines(oldText);
    const QStringList newLines = toLines(newText);
    // Lines equal at both ends are left out of the search for the edit script, all but the context next to
    // the change (as GNU diff does): a one-line edit in a file of 100,000 lines took half a second, now it
    // costs a comparison of the lines.
    const qsizetype shorter = std::min(oldLines.size(), newLines.size());
    qsizetype prefix = 0;
    while (prefix < shorter && oldLines.at(prefix) == newLines.at(prefix))
        ++prefix;
    qsizetype suffix = 0;
    while (suffix < shorter - prefix &&
           oldLines.at(oldLines.size() - 1 - suffix) == newLines.at(newLines.size() - 1 - suffix))
        ++suffix;
    const qsizetype lead = std::max<qsizetype>(0, prefix - context);
    const qsizetype trail = std::max<qsizetype>(0, suffix - context);
    const std::vector<std::string> a = toStd(oldLines, lead, oldLines.size() - trail);
    const std::vector<std::string> b = toStd(newLines, lead, newLines.size() - trail);

    dtl::Diff<std::string> diff(a, b);
    if (a.size() + b.size() > 20000)
        diff.onHuge(); // bounded memory on big files, at the cost of a possibly longer script
    diff.compose();
    const auto sequence = diff.getSes().getSequence();

    std::vector<Entry> entries;
    entries.reserve(sequence.size());
    for (const auto &[text, info] : sequence)
        entries.push_back({int(info.type), &text});

    // Within a run of changes, removed lines come before added ones, as in GNU diff (dtl may interleave
    // them).
    for (size_t i = 0; i < entries.size();) {
        if (entries[i].type == dtl::SES_COMMON) {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < entries.size() && entries[j].type != dtl::SES_COMMON)
            ++j;
        std::stable_partition(entries.begin() + long(i), entries.begin() + long(j),
                              [](const Entry &e) { return e.type == dtl::SES_DELETE; });
        i = j;
    }

    QString out;
    out += created ? QStringLiteral("--- /dev/null\n") : QStringLiteral("--- a/%1\n").arg(label);
    out += QStringLiteral("+++ b/%1\n").arg(label);

    const long long n = (long long)entries.size();
    // Old and new line numbers (1-based) of each entry's position.
    std::vector<long long> oldLine(size_t(n) + 1), newLine(size_t(n) + 1);
    long long o = lead + 1, m = lead + 1;
    for (long long i = 0; i < n; ++i) {
        oldLine[size_t(i)] = o;
        newLine[size_t(i)] = m;
        if (entries[size_t(i)].type != dtl::SES_ADD)
            ++o;
        if (entries[size_t(i)].type != dtl::SES_DELETE)
            ++m;
    }
    oldLine[size_t(n)] = o;
    newLine[size_t(n)] = m;

    long long i = 0;
    while (i < n) {
        while (i < n && entries[size_t(i)].type == dtl::SES_COMMON)
            ++i;
        if (i >= n)
            break;
        const long long hunkStart = std::max(0LL, i - context);
        // Extend over changes separated by at most 2 * context common lines.
        long long end = i;
        long long j = i;
        while (j < n) {
            if (entries[size_t(j)].type != dtl::SES_COMMON) {
                end = j;
                ++j;
                continue;
            }
            long long k = j;
            while (k < n && entries[size_t(k)].type == dtl::SES_COMMON)
                ++k;
            if (k >= n || k - j > 2 * context)
                break;
            j = k;
        }
        const long long hunkEnd = std::min(n, end + 1 + context);

        long long oldCount = 0, newCount = 0;
        QString body;
        for (long long k = hunkStart; k < hunkEnd; ++k) {
            const Entry &entry = entries[size_t(k)];
            const QString text = QString::fromStdString(*entry.text);
            if (entry.type == dtl::SES_COMMON) {
                body += QLatin1Char(' ') + text + QLatin1Char('\n');
                ++oldCount;
                ++newCount;
            } else if (entry.type == dtl::SES_DELETE) {
                body += QLatin1Char('-') + text + QLatin1Char('\n');
                ++oldCount;
            } else {
                body += QLatin1Char('+') + text + QLatin1Char('\n');
                ++newCount;
            }
        }
        out += QStringLiteral("@@ -%1 +%2 @@\n")
                   .arg(range(oldLine[size_t(hunkStart)], oldCount),
                        range(newLine[size_t(hunkStart)], newCount));
        out += body;
        i = hunkEnd;
    }
    return out;
}

} // namespace keen
