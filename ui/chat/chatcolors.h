#pragma once

#include <QColor>
#include <QPalette>

namespace keen {

// The chat view's derived colors, from palette roles only, so the light and the dark palette both work.
class ChatColors
{
public:
    static bool isDark(const QPalette &palette);
    // Background of fenced code blocks and tool output.
    static QColor codeBlockBackground(const QPalette &palette);
    // Tint behind inline `code` spans: visibly different from the text background, never loud.
    static QColor inlineCodeBackground(const QPalette &palette);
    // Text color of inline code: the palette's text, nudged towards the link color for a hint of tint.
    static QColor inlineCodeText(const QPalette &palette);
    static QColor tableBorder(const QPalette &palette);
    // The bar beside a block quote: half way between the background and the text, opaque, in both schemes.
    static QColor quoteBar(const QPalette &palette);
    // Diff lines in edit cards and permission requests.
    static QColor diffAdded(const QPalette &palette);
    static QColor diffRemoved(const QPalette &palette);
    static QColor diffHunk(const QPalette &palette);
    // State marks: a tool that succeeded, runs (or a warning), failed (or an error); secondary text.
    static QColor success(const QPalette &palette);
    static QColor warning(const QPalette &palette);
    static QColor error(const QPalette &palette);
    static QColor muted(const QPalette &palette);
    // The bar beside a side stream (a /btw answer, a /adversary review): not part of the conversation.
    static QColor aside(const QPalette &palette);
};

} // namespace keen
