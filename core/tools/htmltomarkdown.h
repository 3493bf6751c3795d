#pragma once

#include <QString>
#include <QStringView>
#include <QUrl>

namespace keen {

// A page as Markdown for the model (web_fetch): headings, paragraphs, links made absolute, lists, code
// blocks, emphasis, quotes and simple tables; scripts, styles, comments and the head are dropped. A
// tolerant single pass over the text with bounded lookahead, so any input, however broken, converts in
// linear time: a page is untrusted and may be megabytes long. Core has no QtGui, so no QTextDocument.
class HtmlToMarkdown
{
public:
    // baseUrl resolves relative links and images (a <base href> in the page takes over).
    static QString convert(QStringView html, const QUrl &baseUrl);
    // Entities decoded: the common named ones, &#NNN; and &#xHHH;. Unknown ones stay as written.
    static QString decodeEntities(QStringView text);
};

} // namespace keen
