#include "chat/replacedmessagesmodel.h"

#include "agent/historymessage.h"

#include <QTextDocument> // Qt::convertFromPlainText: a tooltip of conversation text is never rich text

namespace keen {

ReplacedMessagesModel::ReplacedMessagesModel(MessageList replaced, QObject *parent)
    : QAbstractListModel(parent)
    , m_replaced(std::move(replaced))
{}

ReplacedMessagesModel::~ReplacedMessagesModel() = default;

int ReplacedMessagesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_replaced.size());
}

QVariant ReplacedMessagesModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Message &message = m_replaced.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return describe(message);
    case Qt::ToolTipRole:
        return Qt::convertFromPlainText(message.content.left(2000), Qt::WhiteSpaceNormal);
    default:
        return {};
    }
}

QString ReplacedMessagesModel::describe(const Message &message)
{
    const HistoryMessage shown = HistoryMessage::of(message);
    if (shown.kind == HistoryMessage::Kind::PinnedContext)
        return shown.pins == 1 ? tr("Pinned: 1 item, kept after the summary as it is")
                               : tr("Pinned: %1 items, kept after the summary as they are").arg(shown.pins);
    QString first = shown.text.trimmed().section(QLatin1Char('\n'), 0, 0);
    if (first.size() > 120)
        first = first.left(119) + QChar(0x2026);
    QString row;
    switch (message.role) {
    case Message::Role::User:
        row = shown.kind == HistoryMessage::Kind::CompactedContext
                  ? tr("Summary of the earlier conversation, then you: %1").arg(first)
                  : tr("You: %1").arg(first);
        break;
    case Message::Role::Assistant:
        row = tr("Assistant: %1").arg(first);
        break;
    case Message::Role::System:
        row = tr("System: %1").arg(first);
        break;
    }
    if (message.hasToolActivity()) {
        const qsizetype calls = message.turnMemory->toolActivity.size();
        const QString count = calls == 1 ? tr("1 tool call") : tr("%1 tool calls").arg(calls);
        // A reply that was only tool calls (a stopped turn) reads "Assistant: 1 tool call".
        row += first.isEmpty() ? count : QStringLiteral(" (%1)").arg(count);
    }
    return row;
}

} // namespace keen

#include "moc_replacedmessagesmodel.cpp"
