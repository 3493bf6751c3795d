#include "chat/conversationsearch.h"

#include "chat/chatmodel.h"

namespace keen {

QList<ConversationSearch::Match> ConversationSearch::find(const ChatModel &model, const QString &needle,
                                                          const std::function<bool(int row)> &shown)
{
    QList<Match> matches;
    if (needle.isEmpty())
        return matches;
    for (int row = 0; row < model.rowCount() && matches.size() < MaxMatches; ++row) {
        if (shown && !shown(row))
            continue;
        const ChatItem &item = model.item(row);
        const bool markdown = item.kind == ChatItem::Kind::AssistantText ||
                              item.kind == ChatItem::Kind::Info || item.kind == ChatItem::Kind::User;
        const QString plain = markdown ? QString() : item.plainText();
        const QString &text = markdown ? item.text : plain;
        int occurrence = 0;
        for (qsizetype at = text.indexOf(needle, 0, Qt::CaseInsensitive);
             at >= 0 && matches.size() < MaxMatches;
             at = text.indexOf(needle, at + needle.size(), Qt::CaseInsensitive)) {
            matches.append({row, occurrence++});
        }
    }
    return matches;
}

} // namespace keen
