// The Markdown export of any transcript the loader accepts: no crash, no leak, always a document.
#include "session/sessionexporter.h"
#include "transcriptfuzzing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    keen::fuzz::ensureApplication();
    const std::optional<keen::LoadedSession> loaded = keen::fuzz::loadTranscript(data, size);
    if (!loaded)
        return 0;
    keen::SessionInfo info;
    info.id = loaded->session.id;
    info.path = loaded->session.transcriptPath;
    info.workspace = loaded->session.workspace;
    info.title = QStringLiteral("fuzz");
    const QString markdown = keen::SessionExporter::toMarkdown(info, loaded->events);
    if (markdown.isEmpty())
        __builtin_trap();
    return 0;
}
