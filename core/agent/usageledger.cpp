#include "agent/usageledger.h"

#include "agent/markdowntable.h"

#include "base/privatefolder.h"
#include "base/regularfile.h"

#include <QDebug>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QSet>
#include <QThreadPool>

#include <algorithm>

namespace keen {

namespace {

// One thread, so lines are written in the order they were recorded.
QThreadPool &ledgerThread()
{
    static QThreadPool pool;
    static const bool configured = [] {
        pool.setMaxThreadCount(1);
        pool.setExpiryTimeout(-1);
        return true;
    }();
    Q_UNUSED(configured)
    return pool;
}

QString number(qint64 value)
{
    return QLocale().toString(value);
}

} // namespace

void UsageLedger::Totals::add(const TokenUsage &usage)
{
    requests = TokenUsage::add(requests, 1);
    input = TokenUsage::add(input, usage.inputTokens);
    output = TokenUsage::add(output, usage.outputTokens);
    cached = TokenUsage::add(cached, qMax(usage.cachedTokens, usage.cacheReadTokens));
}

QString UsageLedger::defaultPath(const QString &dataDir)
{
    return QDir(dataDir).filePath(QStringLiteral("usage/usage.jsonl"));
}

void UsageLedger::record(const QString &path, const Entry &entry,
                         const std::function<void(const QString &why)> &failed)
{
    ledgerThread().start([path, entry, failed] {
        const Result<void> appended = append(path, entry);
        // Said once per file and run (stderr headless; the log and /usage in the window), and the run goes
        // on: a FIFO in the ledger's place must not keep `run` from exiting.
        static QSet<QString> warned; // only the ledger's one thread touches it
        if (!appended && !warned.contains(path)) {
            warned.insert(path);
            qWarning().noquote() << tr("Warning: %1; usage is not recorded").arg(appended.error());
            if (failed)
                failed(appended.error());
        }
    });
}

void UsageLedger::flush()
{
    ledgerThread().waitForDone();
}

Result<void> UsageLedger::append(const QString &path, const Entry &entry)
{
    if (Result<void> made = PrivateFolder::ensure(QFileInfo(path).path()); !made)
        return Result<void>::failure(tr("Cannot create the usage folder %1").arg(made.error()));
    QJsonObject line{
        {QStringLiteral("time"), entry.time.toUTC().toString(Qt::ISODate)},
        {QStringLiteral("provider"), entry.provider},
        {QStringLiteral("model"), entry.model},
        {QStringLiteral("kind"), entry.kind},
    };
    const QJsonObject usage = entry.usage.toJson();
    for (auto it = usage.begin(); it != usage.end(); ++it)
        line.insert(it.key(), it.value());
    // One write of one line: appends from two processes do not interleave within a line. Only to a regular
    // file: a FIFO would block until a reader came.
    return RegularFile::append(path, QJsonDocument(line).toJson(QJsonDocument::Compact) + '\n');
}

UsageLedger::Summary UsageLedger::summarize(const QString &path, const QDateTime &now)
{
    Summary summary;
    if (!QFileInfo::exists(path))
        return summary;
    const RegularFile::Read read =
        RegularFile::readTail(path, std::numeric_limits<qint64>::max(), MaxReadBytes);
    if (!read.ok()) {
        summary.error = read.error;
        return summary;
    }
    QHash<QString, qsizetype> rowOf;
    const QDateTime week = now.addDays(-7);
    const QDateTime month = now.addDays(-30);
    qsizetype start = 0;
    if (read.offset > 0) // the first line read is likely cut: from the next one
        start = read.bytes.indexOf('\n') + 1;
    while (start < read.bytes.size()) {
        qsizetype end = read.bytes.indexOf('\n', start);
        if (end < 0)
            end = read.bytes.size();
        const QByteArray line = read.bytes.mid(start, end - start).trimmed();
        start = end + 1;
        if (line.isEmpty())
            continue;
        const QJsonObject object = QJsonDocument::fromJson(line).object();
        const QDateTime time =
            QDateTime::fromString(object.value(QStringLiteral("time")).toString(), Qt::ISODate);
        const QString model = object.value(QStringLiteral("model")).toString();
        if (!time.isValid() || model.isEmpty()) {
            ++summary.damagedLines;
            continue;
        }
        TokenUsage usage;
        usage.inputTokens = TokenUsage::count(object.value(QStringLiteral("input_tokens")));
        usage.outputTokens = TokenUsage::count(object.value(QStringLiteral("output_tokens")));
        usage.cachedTokens = TokenUsage::count(object.value(QStringLiteral("cached_tokens")));
        const QString provider = object.value(QStringLiteral("provider")).toString();
        const QString name = provider.isEmpty() ? model : provider + QLatin1Char('/') + model;
        auto found = rowOf.find(name);
        if (found == rowOf.end()) {
            found = rowOf.insert(name, summary.rows.size());
            summary.rows.append(Row{name, {}, {}, {}});
        }
        Row &row = summary.rows[*found];
        row.all.add(usage);
        if (time >= month)
            row.month.add(usage);
        if (time >= week)
            row.week.add(usage);
    }
    std::stable_sort(summary.rows.begin(), summary.rows.end(), [](const Row &a, const Row &b) {
        return TokenUsage::add(a.all.input, a.all.output) > TokenUsage::add(b.all.input, b.all.output);
    });
    return summary;
}

QString UsageLedger::markdown(const Summary &summary)
{
    QString text = QStringLiteral("**") + tr("Token usage") + QStringLiteral("**\n\n");
    if (!summary.error.isEmpty())
        return text + summary.error;
    if (summary.rows.isEmpty())
        return text + tr("No requests recorded yet.");
    const auto cell = [](const Totals &totals) {
        if (totals.requests == 0)
            return QStringLiteral("–");
        if (totals.requests == 1)
            return tr("%1 ↑ / %2 ↓ (1 request)").arg(number(totals.input), number(totals.output));
        return tr("%1 ↑ / %2 ↓ (%3 requests)")
            .arg(number(totals.input), number(totals.output), number(totals.requests));
    };
    text += QStringLiteral("| ") + tr("Model") + QStringLiteral(" | ") + tr("Last 7 days") +
            QStringLiteral(" | ") + tr("Last 30 days") + QStringLiteral(" | ") + tr("All time") +
            QStringLiteral(" |\n|---|---|---|---|\n");
    for (const Row &row : summary.rows) {
        text += QStringLiteral("| `") + MarkdownTable::cell(row.model) + QStringLiteral("` | ") +
                cell(row.week) + QStringLiteral(" | ") + cell(row.month) + QStringLiteral(" | ") +
                cell(row.all) + QStringLiteral(" |\n");
    }
    text += QStringLiteral("\n") +
            tr("↑ input and ↓ output tokens as the providers reported them, compactions, side questions and "
               "subagents included.");
    if (summary.damagedLines > 0)
        text +=
            QLatin1Char(' ') + tr("%1 damaged lines of the ledger were skipped.").arg(summary.damagedLines);
    return text;
}

} // namespace keen
