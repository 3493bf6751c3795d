#pragma once

#include "base/result.h"

#include <QCoreApplication>
#include <QString>
#include <QTextStream>

#include <functional>
#include <optional>

namespace keen {

// `run --session ID --compact --review` (issue 16, review before it applies, headless): once the summary has
// streamed, the person answers on standard input, as the window's review dialog offers it: accept, edit (in
// $VISUAL or $EDITOR, as git opens a commit message; what is saved is applied), regenerate with a new focus,
// or cancel. The end of the input cancels: nothing is applied without an answer.
class CompactionReviewPrompt final
{
    Q_DECLARE_TR_FUNCTIONS(CompactionReviewPrompt)

public:
    struct Decision
    {
        enum class Action { Accept, Regenerate, Cancel };
        Action action = Action::Cancel;
        // Accept: the summary to apply (edited or not); Regenerate: the new focus; Cancel: why, when the
        // person did not choose it (the input ended), else empty.
        QString text;
    };

    // One line of the answer without its line break; nullopt at the end of the input.
    using LineReader = std::function<std::optional<QString>()>;

    // err: where the question (and, when showSummary, the summary) is written.
    CompactionReviewPrompt(QTextStream &err, LineReader reader);

    // Asks until the answer is one it can act on; a failed edit or an emptied summary is said and asked
    // again.
    Decision ask(const QString &summary, qsizetype replacedMessages, bool showSummary);

    // Standard input, a line at a time.
    static std::optional<QString> readStandardInputLine();
    // Opens text in $VISUAL, else $EDITOR, else vi (through /bin/sh, so the variable may hold arguments) on a
    // private temporary file and returns what was saved. A failure names the editor and why.
    static Result<QString> editInEditor(const QString &text);

private:
    QTextStream &m_err;
    LineReader m_reader;
};

} // namespace keen
