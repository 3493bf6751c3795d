#include "headless/compactionreviewprompt.h"

#include "base/regularfile.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryFile>

#include <iostream>
#include <string>
#include <unistd.h>

namespace keen {

CompactionReviewPrompt::CompactionReviewPrompt(QTextStream &err, LineReader reader)
    : m_err(err)
    , m_reader(std::move(reader))
{}

CompactionReviewPrompt::Decision CompactionReviewPrompt::ask(const QString &summary,
                                                             qsizetype replacedMessages, bool showSummary)
{
    if (showSummary) // --format json streams nothing on stderr: the person still reads what they decide on
        m_err << '\n' << summary << '\n';
    m_err << '\n'
          << (replacedMessages == 1
                  ? tr("This summary would replace 1 message of the conversation.")
                  : tr("This summary would replace %1 messages of the conversation.").arg(replacedMessages))
          << '\n';
    for (;;) {
        m_err << tr("[a]ccept, [e]dit, [r]egenerate FOCUS, [c]ancel? ");
        m_err.flush();
        const std::optional<QString> line = m_reader();
        if (!line) {
            m_err << '\n';
            return {Decision::Action::Cancel, tr("no answer on standard input; nothing was applied")};
        }
        const QString answer = line->trimmed();
        const QString word = answer.section(QLatin1Char(' '), 0, 0).toLower();
        const QString rest = answer.section(QLatin1Char(' '), 1).trimmed();
        auto is = [&word](const char *full) {
            return word == QLatin1String(full) || word == QLatin1String(full, 1);
        };
        if (is("accept"))
            return {Decision::Action::Accept, summary};
        if (is("cancel"))
            return {Decision::Action::Cancel, QString()};
        if (is("regenerate"))
            return {Decision::Action::Regenerate, rest};
        if (is("edit")) {
            const Result<QString> edited = editInEditor(summary);
            if (!edited)
                m_err << edited.error() << '\n';
            else if (edited->trimmed().isEmpty())
                m_err << tr("The edited summary is empty; it was not applied.") << '\n';
            else
                return {Decision::Action::Accept, *edited};
            continue;
        }
        if (!answer.isEmpty())
            m_err << tr("\"%1\" is not an answer here.").arg(answer) << '\n';
    }
}

std::optional<QString> CompactionReviewPrompt::readStandardInputLine()
{
    std::string line;
    if (!std::getline(std::cin, line))
        return std::nullopt;
    if (!isatty(STDIN_FILENO)) // piped answers are not echoed: the log shows each after its question
        std::cerr << line << std::endl;
    return QString::fromStdString(line);
}

Result<QString> CompactionReviewPrompt::editInEditor(const QString &text)
{
    QString editor = qEnvironmentVariable("VISUAL");
    if (editor.trimmed().isEmpty())
        editor = qEnvironmentVariable("EDITOR");
    if (editor.trimmed().isEmpty())
        editor = QStringLiteral("vi");
    QTemporaryFile file(QStringLiteral("%1/keen-summary-XXXXXX.md").arg(QDir::tempPath())); // 0600
    if (!file.open() || file.write(text.toUtf8()) < 0 || !file.flush())
        return Result<QString>::failure(
            tr("Could not write the summary for the editor: %1").arg(file.errorString()));
    file.close();
    QProcess process;
    process.setProcessChannelMode(QProcess::ForwardedChannels); // the editor has the terminal
    process.setInputChannelMode(QProcess::ForwardedInputChannel);
    process.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), editor + QStringLiteral(" \"$1\""),
                                              QStringLiteral("keen-editor"), file.fileName()});
    if (!process.waitForStarted() || !process.waitForFinished(-1))
        return Result<QString>::failure(
            tr("Could not run the editor (%1): %2").arg(editor, process.errorString()));
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
        return Result<QString>::failure(
            tr("The editor (%1) exited with code %2; the summary was not changed.")
                .arg(editor)
                .arg(process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1));
    // The editor may have put anything in the file's place: only a regular file of a sensible size is read.
    const RegularFile::Read saved = RegularFile::read(file.fileName(), 16 * 1024 * 1024);
    if (!saved.ok())
        return Result<QString>::failure(tr("Could not read the edited summary: %1").arg(saved.error));
    return QString::fromUtf8(saved.bytes);
}

} // namespace keen
