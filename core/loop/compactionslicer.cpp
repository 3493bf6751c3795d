#include "loop/compactionslicer.h"

#include "conversation/historyreplay.h"

#include <QJsonValue>
#include <QLocale>

#include <algorithm>

namespace keen {

namespace {

const QString Separator = QStringLiteral("\n\n");

// "read_file big.txt": the tool and the input field that says what it worked on, for the note of an output
// that was left out.
QString callLabel(const QString &tool, const QJsonObject &input)
{
    QString subject;
    for (const char *key : {"path", "file_path", "command", "pattern", "query", "url"}) {
        subject = input.value(QLatin1String(key)).toString();
        if (!subject.isEmpty())
            break;
    }
    constexpr qsizetype MaxSubject = 60;
    if (subject.size() > MaxSubject)
        subject = subject.left(MaxSubject - 1) + QChar(0x2026);
    return subject.isEmpty() ? tool : tool + QLatin1Char(' ') + subject;
}

} // namespace

qint64 CompactionSlicer::escapedBytes(const QString &text)
{
    return serializeJson(QJsonValue(text)).toUtf8().size() - 2; // without the quotes
}

CompactionSlicer::CompactionSlicer(const MessageList &conversation)
{
    m_strategy.rebuilt = true; // the request is rebuilt from this text, also when it fits one part
    auto add = [this](const QString &text, bool toolOutput = false, const QString &label = QString()) {
        m_items.append(Item{text, toolOutput, label, escapedBytes(text) + escapedBytes(Separator)});
    };
    for (int index = 0; index < conversation.size(); ++index) {
        const Message &message = conversation.at(index);
        switch (message.role) {
        case Message::Role::System:
            break;
        case Message::Role::User:
            add(QStringLiteral("### User\n") + message.content);
            break;
        case Message::Role::Assistant: {
            // In the order the model produced it: text, tool call, result, text (what a replay sends).
            const QList<ReplayStep> steps = replaySteps(message, index);
            for (const ReplayStep &step : steps) {
                if (step.kind == ReplayStep::Kind::Text) {
                    add(QStringLiteral("### Assistant\n") + step.text);
                    continue;
                }
                add(QStringLiteral("### Tool call: ") + step.tool + QLatin1Char(' ') +
                    serializeJson(step.input));
                add(QStringLiteral("### Tool result of %1%2\n")
                            .arg(step.tool, step.isError ? QStringLiteral(" (error)") : QString()) +
                        step.result,
                    true, callLabel(step.tool, step.input));
            }
            break;
        }
        }
    }
}

void CompactionSlicer::leaveOutOldestOutputs(qint64 partBytes)
{
    if (partBytes <= 0)
        return;
    // An item larger than a part is cut to fit one (nextPart), so it never takes more than one part.
    auto planned = [partBytes](qint64 bytes) { return std::min(bytes, partBytes); };
    qint64 total = 0;
    for (const Item &item : std::as_const(m_items))
        total += planned(item.bytes);
    for (Item &item : m_items) {
        if (total <= partBytes * MaxParts)
            return;
        if (!item.toolOutput)
            continue;
        const qsizetype characters = item.text.size();
        item.text =
            tr("### Tool result of %1 left out (%2 characters) to keep this compaction to %3 requests")
                .arg(item.label, QLocale().toString(characters))
                .arg(MaxParts);
        m_strategy.dropped.append(tr("%1 (%2 characters)").arg(item.label, QLocale().toString(characters)));
        const qint64 bytes = escapedBytes(item.text) + escapedBytes(Separator);
        total -= planned(item.bytes) - planned(bytes);
        item.bytes = bytes;
        item.toolOutput = false;
        ++m_strategy.droppedOutputs;
        m_strategy.droppedCharacters += characters;
    }
}

QString CompactionSlicer::cutToFit(const QString &text, qint64 maxBytes, qint64 *cutCharacters)
{
    const qint64 bytes = escapedBytes(text);
    if (bytes <= maxBytes)
        return text;
    // Keep the same share of characters as of bytes, then shrink until it fits with its note.
    const double perCharacter = double(bytes) / double(qMax<qsizetype>(1, text.size()));
    qsizetype keep = qsizetype(double(maxBytes) / perCharacter);
    for (;;) {
        keep = qMax<qsizetype>(0, keep);
        const qsizetype head = keep / 2;
        const qsizetype tail = keep - head;
        const qsizetype cut = text.size() - keep;
        const QString note = tr("\n[... %1 characters cut here to fit the compaction request ...]\n")
                                 .arg(QLocale().toString(cut));
        const QString result = text.left(head) + note + text.right(tail);
        if (escapedBytes(result) <= maxBytes || keep == 0) {
            if (cutCharacters)
                *cutCharacters = cut;
            return result;
        }
        keep -= qMax<qsizetype>(1, keep / 10);
    }
}

QString CompactionSlicer::nextPart(qint64 maxBytes)
{
    QString part;
    qint64 used = 0;
    while (m_next < m_items.size()) {
        const Item &item = m_items.at(m_next);
        if (used + item.bytes > maxBytes) {
            if (!part.isEmpty())
                break; // the next part starts with it
            // Larger than a whole part on its own: keep its head and tail.
            qint64 cut = 0;
            part = cutToFit(item.text, maxBytes - escapedBytes(Separator), &cut);
            ++m_strategy.cutOutputs;
            if (!item.toolOutput)
                ++m_strategy.cutMessages;
            m_strategy.cutCharacters += cut;
            ++m_next;
            break;
        }
        if (!part.isEmpty())
            part += Separator;
        part += item.text;
        used += item.bytes;
        ++m_next;
    }
    return part;
}

QString CompactionSlicer::partMessage(const QString &summarySoFar, const QString &part, int number, bool last)
{
    QString message = tr("This conversation is too long for one compaction request, so it is summarised in "
                         "parts, oldest first.");
    if (!summarySoFar.isEmpty())
        message += QStringLiteral("\n\n<summary_so_far>\n") + summarySoFar +
                   QStringLiteral("\n</summary_so_far>\n\n") +
                   tr("The summary above covers the earlier parts of the conversation.");
    message += QStringLiteral("\n\n<conversation_part number=\"%1\">\n").arg(number) + part +
               QStringLiteral("\n</conversation_part>\n\n");
    message += last ? tr("This is the last part. Write one summary of the whole conversation that merges the "
                         "summary so far with this part.")
                    : tr("More parts follow. Write one summary of the conversation so far that merges the "
                         "summary so far with this part.");
    return message;
}

} // namespace keen
