#pragma once

#include "providers/providererror.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QString>
#include <QUrl>

namespace keen {

// What to say when a successful reply is not what the API sends: a web page (base_url pointing at a web
// server, not at the API), a JSON document this app cannot read as a response, a line of plain text. The
// same request would get the same reply, so it is not retried; the message quotes what came, readably.
class UnexpectedReply
{
    Q_DECLARE_TR_FUNCTIONS(UnexpectedReply)

public:
    // contentType as the server sent it (may be empty); head: the body's first bytes (ReplyBodySniffer);
    // exceededBytes: the limit the body went past, when it was too large to be read at all.
    static ProviderError error(const QByteArray &contentType, const QByteArray &head,
                               qint64 exceededBytes = 0);
    // For an HTTP 404 whose body is not the API's own error (JSON): the address itself is wrong, most often a
    // base_url without its /v1. Empty for a JSON body (a real API's "model not found"). The URL is said
    // without its query, which may carry a key.
    static QString notFoundHint(const QUrl &url, const QByteArray &body);
    // "text/html (“Welcome to nginx!”)": the reply's type and its first words, for a sentence that says what
    // was expected instead.
    static QString what(const QByteArray &contentType, const QByteArray &head);
    // The body's first words as a person would read them: a page's text without its tags, a JSON error's
    // message, white space collapsed, cut to about a line.
    static QString excerpt(const QByteArray &contentType, const QByteArray &head);
};

} // namespace keen
