#include "chat/chatmodel.h"

#include "chat/incrementalmarkdown.h"
#include "chat/longmessage.h"
#include "chat/tooldisplay.h"
#include "conversation/toolcalltext.h"

#include <QScopedValueRollback>
#include <utility>

namespace keen {

ChatModel::ChatModel(QObject *parent)
    : QAbstractListModel(parent)
{
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(FlushIntervalMs);
    connect(&m_flushTimer, &QTimer::timeout, this, [this] {
        flushSome(MaxCharsPerFlush);
        if (!m_pending.isEmpty())
            m_flushTimer.start();
    });
    m_prependTimer.setInterval(0);
    connect(&m_prependTimer, &QTimer::timeout, this, &ChatModel::prependSome);
}

ChatModel::~ChatModel() = default;

int ChatModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_items.size());
}

QVariant ChatModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ChatItem &item = m_items.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case Qt::AccessibleTextRole:
        return item.plainText();
    case IdRole:
        return item.id;
    case KindRole:
        return int(item.kind);
    case TextRole:
        return item.text;
    case RevisionRole:
        return item.revision;
    case SealedRole:
        return item.sealed;
    case ToolStateRole:
        return int(item.toolState);
    case ToolLabelRole:
        return item.label;
    case ToolDetailRole:
        return item.detail;
    case ToolMetadataRole:
        return item.metadata;
    case CollapsedRole:
        return item.collapsed;
    case SettledRole:
        return item.settled;
    case OutcomeRole:
        return item.outcome;
    case RequestIdRole:
        return item.kind == ChatItem::Kind::Question ? item.questionId : item.permission.id;
    default:
        return {};
    }
}

QHash<int, QByteArray> ChatModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractListModel::roleNames();
    names.insert(IdRole, "itemId");
    names.insert(KindRole, "kind");
    names.insert(TextRole, "text");
    names.insert(RevisionRole, "revision");
    names.insert(SealedRole, "sealed");
    names.insert(ToolStateRole, "toolState");
    names.insert(ToolLabelRole, "toolLabel");
    names.insert(ToolDetailRole, "toolDetail");
    names.insert(ToolMetadataRole, "toolMetadata");
    names.insert(CollapsedRole, "collapsed");
    names.insert(SettledRole, "settled");
    names.insert(OutcomeRole, "outcome");
    names.insert(RequestIdRole, "requestId");
    return names;
}

int ChatModel::rowOf(quint64 id) const
{
    for (int row = int(m_items.size()) - 1; row >= 0; --row) {
        if (m_items.at(row).id == id)
            return row;
    }
    return -1;
}

QString ChatModel::plainText() const
{
    QStringList parts;
    for (const ChatItem &item : m_items)
        parts << item.plainText();
    return parts.join(QStringLiteral("\n\n"));
}

QString ChatModel::wholeText(int row) const
{
    if (row < 0 || row >= m_items.size())
        return {};
    int first = row;
    while (first > 0 && m_items.at(first).continued)
        --first;
    QString text = m_items.at(first).text;
    for (int next = first + 1; next < m_items.size() && m_items.at(next).continued; ++next)
        text += m_items.at(next).text;
    return text;
}

quint64 ChatModel::insert(ChatItem item)
{
    settleRetryRow();
    item.id = m_nextId++;
    item.streamed = item.streamed || m_flushing;
    item.revision = 1;
    const int row = int(m_items.size());
    beginInsertRows({}, row, row);
    m_items.append(std::move(item));
    endInsertRows();
    return m_items.constLast().id;
}

void ChatModel::removeItem(int row)
{
    beginRemoveRows({}, row, row);
    m_items.removeAt(row);
    if (row < m_sealedRows)
        --m_sealedRows;
    if (row < m_settledToolRows)
        --m_settledToolRows;
    endRemoveRows();
}

void ChatModel::removeRowsFrom(int row)
{
    flush();
    for (int last = int(m_items.size()) - 1; last >= std::max(row, 0); --last)
        removeItem(last);
}

void ChatModel::replaceTrailingText(int row, const QString &text)
{
    flush();
    for (int last = int(m_items.size()) - 1; last >= std::max(row, 0); --last) {
        const ChatItem::Kind kind = m_items.at(last).kind;
        if (kind != ChatItem::Kind::AssistantText && kind != ChatItem::Kind::Reasoning)
            break;
        removeItem(last);
    }
    seal();
    appendText(text);
    flush();
    seal();
}

void ChatModel::changed(int row)
{
    ++m_items[row].revision;
    const QModelIndex changedIndex = index(row);
    Q_EMIT dataChanged(changedIndex, changedIndex);
}

quint64 ChatModel::addUserMessage(const QString &text)
{
    flush();
    seal();
    ChatItem item;
    item.kind = ChatItem::Kind::User;
    item.text = text;
    item.sealed = true;
    const quint64 id = insert(std::move(item));
    m_attemptStart = int(m_items.size());
    return id;
}

void ChatModel::appendText(const QString &chunk)
{
    enqueue(ChatItem::Kind::AssistantText, chunk);
}

void ChatModel::appendReasoning(const QString &chunk)
{
    enqueue(ChatItem::Kind::Reasoning, chunk);
}

void ChatModel::enqueue(ChatItem::Kind kind, const QString &chunk)
{
    if (chunk.isEmpty())
        return;
    if (!m_pending.isEmpty() && m_pending.constLast().kind == kind)
        m_pending.last().text += chunk;
    else
        m_pending.append(Pending{kind, chunk});
    if (!m_flushTimer.isActive())
        m_flushTimer.start();
}

void ChatModel::flush()
{
    m_flushTimer.stop();
    flushSome(std::numeric_limits<qsizetype>::max());
}

void ChatModel::flushSome(qsizetype budget)
{
    // Rows this makes or grows hold streamed text (ChatItem::streamed); a replay's rows do not.
    const QScopedValueRollback flushing(m_flushing, true);
    while (!m_pending.isEmpty() && budget > 0) {
        Pending &first = m_pending.first();
        if (first.text.size() <= budget) {
            budget -= first.text.size();
            appendToLast(first.kind, first.text);
            m_pending.removeFirst();
        } else {
            // Never split a surrogate pair across two flushes.
            qsizetype take = budget;
            if (take > 0 && first.text.at(take - 1).isHighSurrogate())
                --take;
            if (take <= 0)
                take = qMin<qsizetype>(2, first.text.size());
            appendToLast(first.kind, first.text.left(take));
            first.text.remove(0, take);
            budget = 0;
        }
    }
}

void ChatModel::appendToLast(ChatItem::Kind kind, const QString &text)
{
    bool appended = false;
    if (!m_items.isEmpty()) {
        ChatItem &last = m_items.last();
        if (last.kind == kind && !last.sealed) {
            last.text += text;
            last.streamed = last.streamed || m_flushing;
            changed(int(m_items.size()) - 1);
            appended = true;
        }
    }
    if (!appended) {
        ChatItem item;
        item.kind = kind;
        item.text = text;
        insert(std::move(item));
    }
    if (kind == ChatItem::Kind::AssistantText)
        splitLongText();
}

void ChatModel::splitLongText()
{
    // A list view row cannot be taller than 32,767 pixels (QListView keeps row heights in a short): a long
    // reply goes on in a new row, at a boundary between Markdown blocks.
    while (m_items.constLast().text.size() > MaxRowChars) {
        const int row = int(m_items.size()) - 1;
        const QString &text = m_items.at(row).text;
        qsizetype split = -1;
        for (const qsizetype boundary : IncrementalMarkdown::blockBoundaries(text)) {
            if (boundary <= MaxRowChars) {
                split = boundary;
            } else {
                if (split < MaxRowChars / 4)
                    split = boundary;
                break;
            }
        }
        if (split <= 0 || split >= text.size())
            return; // one block longer than a row: it stays whole
        ChatItem rest;
        rest.kind = m_items.at(row).kind;
        rest.text = text.mid(split);
        rest.continued = true;
        m_items[row].text.truncate(split);
        changed(row);
        insert(std::move(rest));
    }
}

int ChatModel::findRunningTool(const QString &callId, const QString &toolName) const
{
    for (int row = int(m_items.size()) - 1; row >= 0; --row) {
        const ChatItem &item = m_items.at(row);
        if (item.kind != ChatItem::Kind::Tool || item.toolState != ChatItem::ToolState::Running)
            continue;
        if (!callId.isEmpty() ? item.callId == callId : item.toolName == toolName)
            return row;
    }
    return -1;
}

void ChatModel::toolStarted(const ToolCallInfo &info)
{
    flush();
    ChatItem item;
    item.kind = ChatItem::Kind::Tool;
    item.callId = info.callId;
    item.toolName = info.name;
    item.label = ToolDisplay::label(info.name);
    item.detail = ToolDisplay::detail(info.name, info.input);
    if (info.name == QLatin1String("bash"))
        item.command = ToolCallText::command(info.input);
    if (!info.diff.isEmpty())
        item.setDiff(info.diff);
    insert(std::move(item));
}

void ChatModel::toolFinished(const ToolCallInfo &info)
{
    flush();
    int row = findRunningTool(info.callId, info.name);
    if (row < 0) {
        toolStarted(info);
        row = int(m_items.size()) - 1;
    }
    if (!info.error.isEmpty() && ToolDisplay::isExpectedFailure(info.name, info.error)) {
        removeItem(row);
        m_attemptStart = int(m_items.size());
        return;
    }
    ChatItem &item = m_items[row];
    item.toolState = info.error.isEmpty() ? ChatItem::ToolState::Done : ChatItem::ToolState::Failed;
    item.toolError = info.error;
    const ToolResultFacts facts = ToolResultFacts::read(info.name, info.output);
    if (const QString fetched = ToolDisplay::fetchedText(info.name, facts, info.error, &item.toolError);
        !fetched.isEmpty())
        item.output = fetched;
    item.durationNs = info.durationNs;
    if (item.detail.isEmpty())
        item.detail = ToolDisplay::detail(info.name, info.input);
    item.metadata = ToolDisplay::metadata(info.name, facts);
    item.result = info.output;
    if (!info.diff.isEmpty())
        item.setDiff(info.diff);
    // A command that failed without output (cancelled, say) keeps showing what it printed while it ran.
    const QString output = ToolDisplay::terminalText(facts.commandOutput);
    if (info.name == QLatin1String("bash") && (!output.isEmpty() || info.error.isEmpty())) {
        item.output = output;
        item.outputEarlierLines = ToolDisplay::omittedOutputLines(facts, output);
    }
    // Delegated tasks end with a line each in place of their live activity.
    if (const QString summary = ToolDisplay::delegationSummary(info.name, facts); !summary.isEmpty()) {
        item.output = summary;
        item.outputEarlierLines = 0;
    }
    item.sealed = true;
    changed(row);
    m_attemptStart = int(m_items.size());
}

void ChatModel::toolRejected(const ToolCallInfo &info)
{
    toolStarted(info);
    const int row = int(m_items.size()) - 1;
    ChatItem &item = m_items[row];
    item.toolState = ChatItem::ToolState::Failed;
    item.toolError = info.error;
    item.sealed = true;
    changed(row);
    m_attemptStart = int(m_items.size());
}

void ChatModel::toolOutput(const ToolCallInfo &info)
{
    const int row = findRunningTool(info.callId, info.name);
    if (row < 0)
        return;
    ChatItem &item = m_items[row];
    QString shown = ToolDisplay::terminalText(info.recentOutput);
    while (shown.endsWith(QLatin1Char('\n')))
        shown.chop(1);
    if (shown == item.output && info.earlierLines == item.outputEarlierLines)
        return;
    item.output = shown;
    item.outputEarlierLines = info.earlierLines;
    changed(row);
}

void ChatModel::endRunningTools()
{
    // Only rows that came in since the last call can hold a running tool: a replay calls this once per turn.
    for (int row = m_settledToolRows; row < m_items.size(); ++row) {
        ChatItem &item = m_items[row];
        if (item.kind != ChatItem::Kind::Tool || item.toolState != ChatItem::ToolState::Running)
            continue;
        item.toolState = ChatItem::ToolState::Interrupted;
        item.metadata = tr("interrupted");
        changed(row);
    }
    m_settledToolRows = int(m_items.size());
}

void ChatModel::retry(int attempt, const QString &reason, int delayMs)
{
    // Chunks still queued belong to the attempt that failed.
    m_flushTimer.stop();
    m_pending.clear();
    for (int row = int(m_items.size()) - 1; row >= m_attemptStart && row >= 0; --row) {
        const ChatItem &item = m_items.at(row);
        const bool segment =
            item.kind == ChatItem::Kind::AssistantText || item.kind == ChatItem::Kind::Reasoning;
        if (!segment || item.sealed)
            continue;
        removeItem(row);
    }
    QString line = delayMs >= 1000
                       ? tr("Retrying in %1 s (attempt %2)...").arg(qRound(delayMs / 1000.0)).arg(attempt)
                       : tr("Retrying (attempt %1)...").arg(attempt);
    if (!reason.isEmpty())
        line += QLatin1Char(' ') + reason;
    // One row tells the story of back-to-back retries; five stacked rows repeating the reason did not.
    if (!m_items.isEmpty() && m_items.constLast().kind == ChatItem::Kind::Retry) {
        m_items.last().text = line;
        changed(int(m_items.size()) - 1);
    } else {
        addLine(ChatItem::Kind::Retry, line);
    }
    m_waitingRetry = {m_items.constLast().id, attempt, reason};
}

void ChatModel::settleRetryRow()
{
    // Once the attempt went on (or the turn ended), "Retrying in 2 s..." above the answer was no longer
    // true: the row says what happened instead.
    const WaitingRetry waiting = std::exchange(m_waitingRetry, {});
    const int row = waiting.item ? rowOf(waiting.item) : -1;
    if (row < 0)
        return;
    const int failed = std::max(1, waiting.attempt - 1);
    QString line = failed == 1 ? tr("Retried once.") : tr("Retried %1 times.").arg(failed);
    if (!waiting.reason.isEmpty())
        line = failed == 1 ? tr("Retried once: %1").arg(waiting.reason)
                           : tr("Retried %1 times: %2").arg(QString::number(failed), waiting.reason);
    m_items[row].text = line;
    changed(row);
}

void ChatModel::handleStreamEvent(const StreamEvent &event)
{
    switch (event.type) {
    case StreamEvent::Type::Chunk:
        appendText(event.content);
        break;
    case StreamEvent::Type::ReasoningChunk:
        appendReasoning(event.content);
        break;
    case StreamEvent::Type::ToolStart:
        if (event.toolCall)
            toolStarted(*event.toolCall);
        break;
    case StreamEvent::Type::ToolEnd:
        if (event.toolCall)
            toolFinished(*event.toolCall);
        break;
    case StreamEvent::Type::ToolRejected:
        if (event.toolCall)
            toolRejected(*event.toolCall);
        break;
    case StreamEvent::Type::ToolOutput:
        if (event.toolCall)
            toolOutput(*event.toolCall);
        break;
    case StreamEvent::Type::Retry:
        retry(event.attempt, event.error, event.retryDelayMs);
        break;
    case StreamEvent::Type::Done:
    case StreamEvent::Type::Error:
    case StreamEvent::Type::Incomplete:
        // The error line comes with turnFinished, once; here only the text so far is flushed.
        flush();
        break;
    case StreamEvent::Type::Notice:
        flush();
        seal();
        addLine(ChatItem::Kind::Status, QStringLiteral("⚠ ") + event.content);
        break;
    case StreamEvent::Type::Usage:
    case StreamEvent::Type::AutoCompactionStarted:
    case StreamEvent::Type::AutoCompactionApplied:
    case StreamEvent::Type::AutoCompactionCancelled:
    case StreamEvent::Type::AutoCompactionFailed:
    case StreamEvent::Type::CompactionSliced:
        break;
    }
}

void ChatModel::seal()
{
    flush();
    settleRetryRow();
    // The rows before m_sealedRows are sealed already: a replay seals once per event, so this stays linear.
    for (qsizetype row = m_sealedRows; row < m_items.size(); ++row)
        m_items[row].sealed = true;
    m_sealedRows = int(m_items.size());
    m_attemptStart = int(m_items.size());
}

quint64 ChatModel::addLine(ChatItem::Kind kind, const QString &text)
{
    flush();
    ChatItem item;
    item.kind = kind;
    item.text = text;
    item.sealed = true;
    return insert(std::move(item));
}

namespace {
const QString ReviewLabel = QStringLiteral("**review** ");

QString asideHeading(const QString &question, ChatModel::Aside kind)
{
    // The question as the person typed it, not as Markdown: "*" or "#" in it stay what they are.
    QString escaped;
    for (const QChar c : question.simplified()) {
        if (QStringLiteral("\\`*_{}[]()#+-.!|<>~").contains(c))
            escaped += QLatin1Char('\\');
        escaped += c;
    }
    if (kind == ChatModel::Aside::Review)
        return ReviewLabel + (escaped.isEmpty() ? ChatModel::tr("of the conversation so far") : escaped) +
               QStringLiteral("\n\n");
    return QStringLiteral("**btw** ") + escaped + QStringLiteral("\n\n");
}
} // namespace

quint64 ChatModel::addAside(const QString &question, Aside kind)
{
    flush();
    ChatItem item;
    item.kind = ChatItem::Kind::Info;
    item.text = asideHeading(question, kind);
    item.sealed = true;
    item.aside = true;
    return insert(std::move(item));
}

void ChatModel::appendAside(quint64 id, const QString &chunk)
{
    const int row = rowOf(id);
    if (row < 0 || chunk.isEmpty())
        return;
    m_items[row].text += chunk;
    changed(row);
}

void ChatModel::finishAside(quint64 id, const QString &error, bool cancelled)
{
    const int row = rowOf(id);
    if (row < 0)
        return;
    ChatItem &item = m_items[row];
    // The heading is one line (the question simplified) and a blank line; the answer is what follows.
    const qsizetype body = item.text.indexOf(QStringLiteral("\n\n")) + 2;
    const bool answered = body >= 2 && !QStringView(item.text).sliced(body).trimmed().isEmpty();
    QString note;
    if (cancelled)
        note = tr("Cancelled.");
    else if (!error.isEmpty())
        note = item.text.startsWith(ReviewLabel) ? tr("The review failed: %1").arg(error)
                                                 : tr("The side question failed: %1").arg(error);
    else if (!answered)
        note = tr("No answer came.");
    if (note.isEmpty())
        return;
    item.text += (answered ? QStringLiteral("\n\n*") : QStringLiteral("*")) + note + QLatin1Char('*');
    changed(row);
}

quint64 ChatModel::addTurnError(const QString &text, const QString &prompt)
{
    dropRetryOffer();
    const quint64 id = addLine(ChatItem::Kind::Error, text);
    if (!prompt.trimmed().isEmpty()) {
        m_items.last().retryPrompt = prompt;
        m_retryItem = id;
    }
    return id;
}

QString ChatModel::retryPrompt() const
{
    const int row = m_retryItem ? rowOf(m_retryItem) : -1;
    return row >= 0 ? m_items.at(row).retryPrompt : QString();
}

void ChatModel::dropRetryOffer()
{
    const int row = m_retryItem ? rowOf(std::exchange(m_retryItem, 0)) : -1;
    if (row < 0)
        return;
    m_items[row].retryPrompt.clear();
    changed(row); // shown again, without its link
}

quint64 ChatModel::addInterrupted()
{
    return addLine(ChatItem::Kind::Interrupted, tr("Interrupted...what should the agent do instead?"));
}

quint64 ChatModel::addPermission(const PermissionRequest &request)
{
    flush();
    ChatItem item;
    item.kind = ChatItem::Kind::Permission;
    item.permission = request;
    item.label = ToolDisplay::label(request.toolName);
    item.detail = request.command.isEmpty() ? request.path : request.command;
    item.setDiff(request.diff);
    item.sealed = true;
    return insert(std::move(item));
}

void ChatModel::settlePermission(quint64 requestId, const QString &outcome, bool allowed)
{
    for (int row = int(m_items.size()) - 1; row >= 0; --row) {
        ChatItem &item = m_items[row];
        if (item.kind == ChatItem::Kind::Permission && item.permission.id == requestId) {
            if (!item.settled)
                settleRow(row, outcome, allowed);
            return;
        }
    }
}

void ChatModel::settleRow(int row, const QString &outcome, bool allowed)
{
    ChatItem &item = m_items[row];
    item.settled = true;
    item.outcome = outcome;
    // Allowed, the change is shown by the tool's card: the settled card keeps its outcome only. (Found when
    // tried: with its lines gone, the card fell back to the request's raw diff, "--- /dev/null", "+++ b/...",
    // below the same diff on the tool's card.) A note that is no diff stays.
    if (allowed && !item.diff.isEmpty()) {
        item.clearDiff();
        item.permission.diff.clear();
    }
    changed(row);
}

QString ChatModel::permissionOutcome(PermissionDecision decision)
{
    switch (decision) {
    case PermissionDecision::Allow:
        return tr("Allowed");
    case PermissionDecision::AllowForSession:
        return tr("Allowed for this session");
    case PermissionDecision::Deny:
        return tr("Denied");
    case PermissionDecision::Redirect:
        return tr("Denied: asked what to do instead");
    }
    return {};
}

void ChatModel::addAnsweredPermission(const AnsweredPermission &answer)
{
    addPermission(answer.request());
    settleRow(int(m_items.size()) - 1,
              answer.unanswered ? cancelledOutcome() : permissionOutcome(answer.decision), answer.allowed());
}

QString ChatModel::cancelledOutcome()
{
    return tr("Cancelled");
}

bool ChatModel::hasPendingPermission() const
{
    return pendingPermissionId() != 0;
}

quint64 ChatModel::pendingPermissionId() const
{
    for (const ChatItem &item : m_items) {
        if (item.kind == ChatItem::Kind::Permission && !item.settled)
            return item.permission.id;
    }
    return 0;
}

quint64 ChatModel::addQuestion(quint64 questionId, const UserQuestionList &questions)
{
    flush();
    ChatItem item;
    item.kind = ChatItem::Kind::Question;
    item.questionId = questionId;
    item.questions = questions;
    QStringList lines;
    for (const UserQuestion &question : questions)
        lines << question.question;
    item.text = lines.join(QLatin1Char('\n'));
    item.sealed = true;
    return insert(std::move(item));
}

QString ChatModel::questionOutcome(const UserAnswer &answer)
{
    return answer.cancelled ? cancelledOutcome() : answer.answers.join(QStringLiteral("; "));
}

void ChatModel::settleQuestionRow(int row, const UserAnswer &answer)
{
    ChatItem &item = m_items[row];
    item.settled = true;
    item.outcome = questionOutcome(answer);
    item.answers = answer.cancelled ? QStringList() : answer.answers;
    changed(row);
}

void ChatModel::settleQuestion(quint64 questionId, const QString &outcome, const QStringList &answers)
{
    for (int row = int(m_items.size()) - 1; row >= 0; --row) {
        ChatItem &item = m_items[row];
        if (item.kind == ChatItem::Kind::Question && item.questionId == questionId && !item.settled) {
            item.settled = true;
            item.outcome = outcome;
            item.answers = answers;
            changed(row);
            return;
        }
    }
}

void ChatModel::toggleCollapsed(int row)
{
    if (row < 0 || row >= m_items.size())
        return;
    const ChatItem &item = m_items.at(row);
    if (item.kind != ChatItem::Kind::Reasoning &&
        !(item.kind == ChatItem::Kind::User && LongMessage::isLong(item.text)))
        return;
    m_items[row].collapsed = !m_items.at(row).collapsed;
    changed(row);
}

void ChatModel::clear()
{
    m_flushTimer.stop();
    m_pending.clear();
    m_prependTimer.stop();
    m_prepend = Rows();
    beginResetModel();
    m_items.clear();
    m_firstRowOfSeq.clear();
    m_retryItem = 0;
    m_waitingRetry = {};
    m_attemptStart = 0;
    m_sealedRows = 0;
    m_settledToolRows = 0;
    endResetModel();
}

int ChatModel::rowForSeq(quint64 seq) const
{
    const auto it = m_firstRowOfSeq.lowerBound(seq);
    if (it == m_firstRowOfSeq.cend() || it.value() >= m_items.size())
        return m_items.isEmpty() ? -1 : int(m_items.size()) - 1;
    return it.value();
}

void ChatModel::replayTranscript(const QList<TranscriptItem> &transcript)
{
    // The card of an ask_user call, as it was live below its tool card: "Cancelled" until its tool_end
    // says the answer (a turn stopped while it asked has none). Found when tried: a reopened session showed
    // the Ask card alone, so what the person had answered was nowhere.
    quint64 questionItem = 0;
    for (const TranscriptItem &entry : transcript) {
        switch (entry.kind) {
        case TranscriptItem::Kind::Text:
            appendToLast(ChatItem::Kind::AssistantText, entry.content);
            break;
        case TranscriptItem::Kind::Reasoning:
            appendToLast(ChatItem::Kind::Reasoning, entry.content);
            break;
        case TranscriptItem::Kind::Notice:
            addLine(ChatItem::Kind::Status, QStringLiteral("⚠ ") + entry.content);
            break;
        case TranscriptItem::Kind::ToolStart: {
            ToolCallInfo info;
            info.name = entry.name;
            info.input = entry.input.toObject();
            toolStarted(info);
            if (entry.permission) // still open when the turn was stopped, or "Ask what to do instead"
                addAnsweredPermission(*entry.permission);
            if (entry.name == QLatin1String("ask_user")) {
                questionItem = addQuestion(0, UserQuestion::listFrom(info.input));
                settleQuestionRow(rowOf(questionItem), UserAnswer::cancel());
            }
            break;
        }
        case TranscriptItem::Kind::ToolEnd: {
            ToolCallInfo info;
            info.name = entry.name;
            info.input = entry.input.toObject();
            info.output = entry.output;
            info.error = entry.error;
            info.durationNs = entry.durationNs.value_or(0);
            toolFinished(info);
            if (entry.name == QLatin1String("ask_user") && questionItem != 0) {
                // By id: a failed call's tool card may have gone from above it.
                const int questionRow = rowOf(std::exchange(questionItem, 0));
                const std::optional<UserAnswer> answer = UserAnswer::fromJson(entry.output);
                if (questionRow >= 0 && answer)
                    settleQuestionRow(questionRow, *answer);
                else if (questionRow >= 0)
                    removeItem(questionRow); // the call failed: no one was asked
            }
            // The question the person answered for it, below its card as it was shown live.
            if (entry.permission)
                addAnsweredPermission(*entry.permission);
            break;
        }
        case TranscriptItem::Kind::Bash: {
            // The bash segment belongs to the Run card just before it, when there is one.
            int row = int(m_items.size()) - 1;
            if (row < 0 || m_items.at(row).kind != ChatItem::Kind::Tool ||
                m_items.at(row).toolName != QLatin1String("bash")) {
                ToolCallInfo info;
                info.name = QStringLiteral("bash");
                info.input.insert(QStringLiteral("command"), entry.command);
                toolStarted(info);
                row = int(m_items.size()) - 1;
            }
            ChatItem &item = m_items[row];
            item.command = entry.command;
            item.output = ToolDisplay::terminalText(entry.bashOutput());
            item.toolError = entry.error;
            if (entry.durationNs)
                item.durationNs = *entry.durationNs;
            item.toolState =
                item.toolError.isEmpty() ? ChatItem::ToolState::Done : ChatItem::ToolState::Failed;
            changed(row);
            break;
        }
        case TranscriptItem::Kind::Diff:
            // Attached to the latest tool card (the edit it belongs to).
            for (int row = int(m_items.size()) - 1; row >= 0; --row) {
                if (m_items.at(row).kind == ChatItem::Kind::Tool) {
                    m_items[row].setDiff(entry.diff);
                    changed(row);
                    break;
                }
            }
            break;
        case TranscriptItem::Kind::Unknown:
            break;
        }
    }
}

void ChatModel::markCompaction(quint64 seq)
{
    if (m_items.isEmpty() || seq == 0)
        return;
    const int row = int(m_items.size()) - 1;
    m_items[row].compactionSeq = seq;
    changed(row);
}

void ChatModel::markCompactionUndone(quint64 seq)
{
    // The compaction's row says it was undone; the row under it that listed what its summary left out
    // offers nothing to pin any more: all of it is back in the conversation.
    // That row comes right after the compaction's, or after the rows its pins added.
    auto settleDropped = [](QList<ChatItem> &items, int compactionRow) {
        for (int row = compactionRow + 1; row < items.size() && row <= compactionRow + 3; ++row) {
            if (items.at(row).compactionSeq != 0)
                break; // the next compaction's
            if (!items.at(row).dropped.isEmpty()) {
                items[row].dropped.clear();
                items[row].text = droppedBackText();
                return row;
            }
        }
        return -1;
    };
    for (int row = 0; row < m_prepend.items.size(); ++row) { // rows still to go above
        if (m_prepend.items.at(row).compactionSeq == seq) {
            m_prepend.items[row].compactionUndone = true;
            settleDropped(m_prepend.items, row);
        }
    }
    for (int row = 0; row < m_items.size(); ++row) {
        if (m_items.at(row).compactionSeq == seq && !m_items.at(row).compactionUndone) {
            m_items[row].compactionUndone = true;
            changed(row);
            if (const int dropped = settleDropped(m_items, row); dropped >= 0)
                changed(dropped);
        }
    }
}

QString ChatModel::droppedBackText()
{
    return tr("What this summary left out is back in the conversation with the undo.");
}

void ChatModel::offerCompactionUndo(quint64 seq)
{
    for (ChatItem &item : m_prepend.items) // rows still to go above
        item.undoOffered = seq != 0 && item.compactionSeq == seq && !item.compactionUndone;
    for (int row = 0; row < m_items.size(); ++row) {
        const ChatItem &item = m_items.at(row);
        const bool offered = seq != 0 && item.compactionSeq == seq && !item.compactionUndone;
        if (item.undoOffered != offered) {
            m_items[row].undoOffered = offered;
            changed(row);
        }
    }
}

QString ChatModel::compactionUndoneText()
{
    return tr("↶ Compaction undone: the conversation continues from before it.");
}

QString ChatModel::compactionPolicyText(const CompactionPolicy &policy)
{
    return tr("Compaction policy: %1.").arg(policy.describe());
}

QString ChatModel::editedSummaryNote()
{
    return tr("your edited summary applied");
}

QString ChatModel::compactionHeadingText()
{
    return tr("Summary of the conversation so far (Compact):");
}

QString ChatModel::compactionRowText(bool automatic, const QString &how)
{
    if (how.isEmpty())
        return automatic ? tr("✓ Context compacted automatically.") : tr("✓ Context compacted.");
    return automatic ? tr("✓ Context compacted automatically: %1").arg(how)
                     : tr("✓ Context compacted: %1").arg(how);
}

quint64 ChatModel::addDroppedDetails(const QList<DroppedDetail> &details)
{
    if (details.isEmpty())
        return 0;
    const quint64 id = addLine(ChatItem::Kind::Status, droppedRowText(details));
    m_items.last().dropped = details;
    return id;
}

QString ChatModel::droppedRowText(const QList<DroppedDetail> &details)
{
    QStringList named;
    for (const DroppedDetail &detail : details.mid(0, 3))
        named.append(DroppedDetail::readable(detail.text).left(40));
    const QString shown =
        named.join(QStringLiteral(", ")) + (details.size() > 3 ? QStringLiteral(", …") : QString());
    return details.size() == 1
               ? tr("1 detail not in the summary (%1). Click to see it and pin the original.").arg(shown)
               : tr("%1 details not in the summary (%2). Click to see them and pin the original.")
                     .arg(QString::number(details.size()), shown);
}

void ChatModel::markPinned(quint64 itemId)
{
    const int row = rowOf(itemId);
    if (row < 0 || m_items.at(row).pinned)
        return;
    m_items[row].pinned = true;
    changed(row);
}

QString ChatModel::pinnedText(const Pin &pin)
{
    return tr("Pinned: %1").arg(pin.headline());
}

QString ChatModel::unpinnedText(const QString &headline)
{
    return headline.isEmpty() ? tr("Pin removed.") : tr("Unpinned: %1").arg(headline);
}

void ChatModel::replay(const QList<SessionEvent> &events)
{
    clear();
    for (const SessionEvent &event : events) {
        m_firstRowOfSeq.insert(event.seq, int(m_items.size()));
        switch (event.kind) {
        case SessionEvent::Kind::SessionStarted:
        case SessionEvent::Kind::PinnedContext: // the pin's own row says it, live as well
        case SessionEvent::Kind::Unknown:
            break;
        case SessionEvent::Kind::UserMessage:
            addUserMessage(event.content());
            break;
        case SessionEvent::Kind::AssistantTurn: {
            const QList<TranscriptItem> &transcript = event.transcript();
            if (!transcript.isEmpty())
                replayTranscript(transcript);
            else if (!event.assistantMessage().isEmpty())
                appendToLast(ChatItem::Kind::AssistantText, event.assistantMessage());
            endRunningTools(); // a turn stopped mid-tool has a tool_start without its tool_end
            seal();
            if (event.interrupted())
                addInterrupted();
            if (!event.error().isEmpty())
                addLine(ChatItem::Kind::Error, event.error());
            break;
        }
        case SessionEvent::Kind::CompactionApplied: {
            const QList<TranscriptItem> &transcript = event.transcript();
            const bool manual = !event.status().isEmpty();
            if (!transcript.isEmpty()) {
                // A manual summary, under the heading its live stream had, so it does not read as the
                // reply before it.
                if (manual)
                    addLine(ChatItem::Kind::Status, compactionHeadingText());
                replayTranscript(transcript);
                seal();
            }
            // Its row, as live: how an over-budget one fit (issue 16), whether the person edited the summary;
            // an automatic compaction's row too (S53), though its event stores no status (S64).
            QStringList how;
            if (const QString strategy = event.compaction()->strategy.describe(); !strategy.isEmpty())
                how.append(strategy);
            if (event.compaction()->summaryEdited)
                how.append(editedSummaryNote());
            if (!how.isEmpty() || !manual)
                addLine(ChatItem::Kind::Status, compactionRowText(!manual, how.join(QStringLiteral("; "))));
            else
                addLine(ChatItem::Kind::Status, QStringLiteral("✓ ") + event.status());
            seal();
            markCompaction(event.seq);
            addDroppedDetails(event.compaction()->dropped);
            break;
        }
        case SessionEvent::Kind::CompactionReverted:
            markCompactionUndone(event.revert()->revertsSeq);
            addLine(ChatItem::Kind::Status, compactionUndoneText());
            break;
        case SessionEvent::Kind::CompactionPolicy:
            addLine(ChatItem::Kind::Status, compactionPolicyText(event.policy()->policy));
            break;
        case SessionEvent::Kind::PinAdded:
            addLine(ChatItem::Kind::Status, pinnedText(event.pinAdd()->pin));
            break;
        case SessionEvent::Kind::PinRemoved:
            addLine(ChatItem::Kind::Status, unpinnedText(event.pinRemove()->headline));
            break;
        }
    }
    seal();
}

ChatModel::Rows ChatModel::replayRows(const QList<SessionEvent> &events)
{
    ChatModel scratch;
    scratch.replay(events);
    return Rows{std::move(scratch.m_items), std::move(scratch.m_firstRowOfSeq)};
}

namespace {

// What a replay puts in a row, besides its kind (collapsed is the person's choice, not the replay's).
bool sameContent(const ChatItem &a, const ChatItem &b)
{
    return a.text == b.text && a.toolState == b.toolState && a.label == b.label && a.detail == b.detail &&
           a.metadata == b.metadata && a.durationNs == b.durationNs && a.toolError == b.toolError &&
           a.diff.size() == b.diff.size() && a.diffOmitted == b.diffOmitted && a.diffGap == b.diffGap &&
           a.command == b.command && a.output == b.output && a.compactionSeq == b.compactionSeq &&
           a.compactionUndone == b.compactionUndone;
}

} // namespace

void ChatModel::restore(Rows rows)
{
    clear();
    if (rows.items.isEmpty())
        return;
    beginInsertRows(QModelIndex(), 0, int(rows.items.size()) - 1);
    m_items = std::move(rows.items);
    m_firstRowOfSeq = std::move(rows.firstRowOfSeq);
    m_attemptStart = int(m_items.size());
    m_sealedRows = 0; // rows from elsewhere: the next seal and endRunningTools look at all of them once
    m_settledToolRows = 0;
    endInsertRows();
}

bool ChatModel::completeHistory(Rows full, quint64 firstShownSeq, int shownRows)
{
    const auto first = full.firstRowOfSeq.constFind(firstShownSeq);
    if (first == full.firstRowOfSeq.cend() || shownRows > m_items.size() ||
        full.items.size() - first.value() != shownRows)
        return false;
    const int above = first.value();
    for (int row = 0; row < shownRows; ++row) {
        if (m_items.at(row).kind != full.items.at(above + row).kind)
            return false;
    }
    for (int row = 0; row < shownRows; ++row) {
        const ChatItem &whole = full.items.at(above + row);
        if (sameContent(m_items.at(row), whole))
            continue;
        ChatItem &item = m_items[row];
        const quint64 id = item.id;
        const bool collapsed = item.collapsed;
        item = whole;
        m_settledToolRows = 0;
        item.id = id;
        item.collapsed = collapsed;
        changed(row);
    }
    full.items.resize(above);
    m_prepend = std::move(full);
    m_prependTimer.start();
    return true;
}

void ChatModel::prependSome()
{
    // From the bottom of the older rows up, so the rows already shown never move relative to each other.
    const qsizetype count = qMin<qsizetype>(PrependBatchRows, m_prepend.items.size());
    const qsizetype from = m_prepend.items.size() - count;
    if (count > 0) {
        beginInsertRows(QModelIndex(), 0, int(count) - 1);
        for (qsizetype i = m_prepend.items.size() - 1; i >= from; --i) {
            ChatItem item = std::move(m_prepend.items[i]);
            item.id = m_nextId++; // ids are this model's
            m_items.prepend(std::move(item));
        }
        m_prepend.items.resize(from);
        for (int &row : m_firstRowOfSeq)
            row += int(count);
        m_attemptStart += int(count);
        m_sealedRows = 0;
        m_settledToolRows = 0;
        endInsertRows();
    }
    if (!m_prepend.items.isEmpty())
        return; // the timer goes on
    m_prependTimer.stop();
    // Row for row what a replay of all events makes: its map of seqs to rows holds.
    m_firstRowOfSeq = std::move(m_prepend.firstRowOfSeq);
    m_prepend = Rows();
    Q_EMIT historyCompleted();
}

} // namespace keen

#include "moc_chatmodel.cpp"
