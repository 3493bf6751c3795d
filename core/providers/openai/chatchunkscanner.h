#pragma once

#include <QByteArrayView>
#include <QString>

#include <optional>

namespace keen {

// Reads the Chat Completions chunk that makes up almost every event of a streamed reply,
//   {"id":"..","object":"chat.completion.chunk",..,"choices":[{"index":0,"delta":{"content":".."},
//    "finish_reason":null}]}
// in one pass over its bytes, without building a JSON document: parsing each event into a QJsonDocument was
// most of the stream thread's work (docs/PERFORMANCE.md, row 1). It gives up (nullopt) on everything else,
// and the decoder then parses the event in full as before: usage, tool calls, errors, a second choice or
// another index, a value of an unexpected type, a repeated key it reads, a lone surrogate escape, a number it
// does not skip plainly, invalid UTF-8, malformed JSON. So what it accepts it reads exactly as the full parse
// would; tests/providers/tst_chatchunkscanner.cpp and the fuzz target fuzz_chatchunkscanner check that on the
// same input.
class ChatChunkScanner
{
public:
    struct Chunk
    {
        QString reasoning; // the first non-empty of reasoning_content, reasoning and reasoning_text
        QString content;
        QString refusal;
        QString finishReason;
    };

    static std::optional<Chunk> scan(QByteArrayView json);
};

} // namespace keen
