#pragma once

#include "tools/tool.h"

#include <QCache>
#include <QCoreApplication>
#include <QHash>
#include <QJsonObject>
#include <QMutex>
#include <QUrl>

namespace keen {

// web_fetch: GETs an http(s) page and returns it as Markdown text (reference 2.2). The person is asked
// first, with the URL (the project allow-list, "Allow for this session", headless runs and yolo mode allow
// it; plan mode too: it changes nothing). An address on this computer or the local network is named in the
// question, refused where nobody is asked (unless KEEN_WEB_FETCH_LOCAL=1), and never reached by a redirect
// from an internet address (LocalNetwork). Redirects are followed to http(s) only; no cookies, no
// credentials. A result over 128 KB is cut, the whole text saved under <data dir>/web-fetch-artifacts for
// read_file. Results are kept for the session (up to 16 KiB in memory, larger ones in a file beside the
// artifacts), so checkCache can answer without a request.
class WebFetchTool final : public Tool
{
    Q_DECLARE_TR_FUNCTIONS(WebFetchTool)

public:
    static constexpr int DefaultTimeoutMs = 30 * 1000;
    static constexpr int MaxRedirects = 5;
    static constexpr qint64 MaxDownloadBytes = 10 * 1024 * 1024;
    static constexpr qsizetype MaxInlineBytes = 128 * 1024; // UTF-8 bytes of content given inline
    static constexpr qsizetype MaxCachedBytes = 16 * 1024;
    static constexpr int CacheEntries = 512;
    static constexpr qsizetype ErrorExcerptChars = 2048; // of an error page, for the model

    QString name() const override;
    QString description() const override;
    QJsonObject inputSchema() const override;
    QString validateInput(const QJsonObject &input) const override;
    ToolResult execute(const QJsonObject &input, ToolContext &context) override;

    // Tests shorten the 30 s limit.
    void setTimeoutMs(int timeoutMs) { m_timeoutMs = timeoutMs; }

    // The artifact for content: <dataDir>/web-fetch-artifacts/keen-web-fetch-<16 hex>.txt.
    static QString artifactPath(const QString &dataDir, const QString &url, const QString &content);

private:
    std::optional<QJsonObject> cached(const QString &url) const;
    void remember(const QStringList &urls, const QJsonObject &output);
    // A result over MaxCachedBytes is kept on disk instead (the reference agent's cache for larger pages):
    // written beside the artifacts, found again through this session's map only.
    void rememberOnDisk(const QStringList &urls, const QJsonObject &output, const QString &dataDir);

    int m_timeoutMs = DefaultTimeoutMs;
    // By requested and by final URL; the tool object lives as long as the session's tool registry.
    mutable QMutex m_cacheMutex;
    mutable QCache<QString, QJsonObject> m_cache{CacheEntries};
    mutable QHash<QString, QString> m_diskCache; // URL -> the file its result is in
};

} // namespace keen
