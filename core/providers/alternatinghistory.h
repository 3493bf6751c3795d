#pragma once

#include "conversation/message.h"
#include "providers/providerprotocol.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>

#include <functional>

namespace keen {

// Builds a native message list for the APIs whose user and assistant turns must alternate (Anthropic,
// Bedrock, Gemini): historical tool activity becomes call blocks in an assistant message followed by a user
// message of result blocks, and consecutive messages of one role are merged into one message with several
// blocks. The three APIs differ only in the names and the block shapes, given here.
class AlternatingHistory
{
public:
    struct Shape
    {
        QString userRole;      // "user"
        QString assistantRole; // "assistant" or "model"
        QString contentKey;    // "content" or "parts"
        std::function<QJsonObject(const QString &text)> textBlock;
        std::function<QJsonObject(const QString &id, const QString &name, const QJsonObject &input)>
            callBlock;
        std::function<QJsonObject(const QString &id, const QString &name, const QString &result,
                                  bool isError)>
            resultBlock;
    };

    explicit AlternatingHistory(Shape shape);

    // The native messages of a neutral history; system messages are skipped (the caller keeps them apart).
    // Empty user and assistant texts are skipped because these APIs reject empty text blocks. Historical call
    // ids use the message's index in the given list, as the reference agent does.
    QJsonArray build(const MessageList &messages, qsizetype firstIndex = 0) const;

    // Appends a native message, merging it into the last one when both have the same role.
    void append(QJsonArray &messages, const QJsonObject &message) const;
    // messages with consecutive same-role messages merged (pending state injected by the tool loop can put a
    // user message of results right before the next prompt). stableIndex, when given, is moved to the merged
    // message that holds it.
    QJsonArray normalized(const QJsonArray &messages, int *stableIndex = nullptr) const;
    // Appends a user text block, into a trailing user message when there is one.
    void appendUserText(QJsonArray &messages, const QString &text) const;

    const Shape &shape() const { return m_shape; }

    // The protocol operations Anthropic and Bedrock share (they keep system blocks apart from the messages).
    // Non-empty system messages as text blocks.
    QJsonArray systemBlocks(const MessageList &messages) const;
    NativeHistory toNative(const MessageList &messages, qsizetype firstIndex = 0) const;
    // The system blocks stay byte-identical so the cached system prefix survives a compaction.
    NativeHistory rebuildAfterCompaction(const NativeHistory &current, const MessageList &replacement) const;
    // turn.assistantNative when the decoder built it, else the text and calls of the turn.
    QJsonArray assistantMessages(const ModelTurn &turn) const;
    // All results of one turn in one user message.
    QJsonArray toolResultMessages(const QList<ToolOutcome> &outcomes) const;

private:
    QJsonObject message(const QString &role, const QJsonArray &blocks) const;
    void appendAssistant(QJsonArray &messages, const Message &message, int index) const;

    Shape m_shape;
};

} // namespace keen
