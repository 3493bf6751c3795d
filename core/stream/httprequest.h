#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QUrl>

namespace keen {

using HeaderList = QList<QPair<QByteArray, QByteArray>>;

// One HTTP request to a provider, built by its protocol and sent by HttpStreamer.
struct HttpRequestSpec
{
    QByteArray method = "POST"; // GET for a models list (the connection test)
    QUrl url;
    HeaderList headers; // Content-Type included
    QByteArray body;
    bool http1Only = false; // Codex wants HTTP/1.1
};

} // namespace keen
