#pragma once

#include "providers/openai/ssestreamdecoderbase.h"

#include <QCoreApplication>
#include <QHash>
#include <QJsonObject>
#include <QSet>
#include <QString>

#include <map>
#include <optional>

namespace keen {

// Decodes an OpenAI Responses stream, for the openai and openai-codex providers (reference 1.3, 1.4): text
// deltas (each item_id:content_index tracked so the .done events and completed items add only what the deltas
// missed, as the Codex backend needs), reasoning deltas, function calls from output_item.done and
// response.completed (de-duplicated by call_id), the output items to replay on continuation, usage, and the
// error, response.failed and response.incomplete events. response.completed is the terminal marker.
class ResponsesStreamDecoder final : public SseStreamDecoderBase
{
    Q_DECLARE_TR_FUNCTIONS(ResponsesStreamDecoder)

public:
    explicit ResponsesStreamDecoder(EventSink sink);

    Result<ModelTurn> finish() override;

private:
    void handleEvent(const SseParser::Event &event) override;
    void handleTextDelta(const QJsonObject &event);
    void handleFullText(const QString &key, const QString &text);
    void handleMessageItem(const QJsonObject &item);
    void handleReasoningDelta(const QJsonObject &event);
    void handleCompleted(const QJsonObject &response);

    QString m_text;
    QString m_reasoning;
    QString m_reasoningPart;                // the reasoning part the last delta belonged to
    QHash<QString, QString> m_streamed;     // item_id:content_index -> text already shown
    std::map<int, QJsonObject> m_doneItems; // output_item.done by output_index
    QJsonArray m_completedOutput;
    std::optional<TokenUsage> m_usage;
    QString m_status;
    bool m_completed = false;
};

} // namespace keen
