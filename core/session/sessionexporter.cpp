#include "session/sessionexporter.h"

#include "conversation/tooloutputtext.h"
#include "conversation/userquestion.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace keen {

namespace {

// A fence longer than any run of backticks inside the content, so the block cannot end early.
QString fenced(const QString &content, const QString &language = QString())
{
    int longest = 0;
    int run = 0;
    for (const QChar c : content) {
        run = c == QLatin1Char('`') ? run + 1 : 0;
        longest = qMax(longest, run);
    }
    const QString fence(qMax(3, longest + 1), QLatin1Char('`'));
    QString body = content;
    if (!body.endsWith(QLatin1Char('\n')))
        body += QLatin1Char('\n');
    return fence + language + QLatin1Char('\n') + body + fence + QStringLiteral("\n\n");
}

QString prettyJson(const QJsonValue &value)
{
    if (value.isObject())
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Indented)).trimmed();
    if (value.isArray())
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Indented)).trimmed();
    if (value.isString())
        return value.toString();
    if (value.isDouble())
        return QString::number(value.toDouble());
    if (value.isBool())
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    return {};
}

// Long outputs are cut to their first lines; the transcript keeps them whole.
QString shortened(const QString &output)
{
    QStringList lines = output.split(QLatin1Char('\n'));
    while (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    const qsizetype totalLines = lines.size();
    QString kept;
    qsizetype keptLines = 0;
    for (const QString &line : std::as_const(lines)) {
        if (keptLines >= SessionExporter::kMaxOutputLines ||
            kept.size() + line.size() > SessionExporter::kMaxOutputChars)
            break;
        kept += line + QLatin1Char('\n');
        ++keptLines;
    }
    if (keptLines == 0 && totalLines > 0) {
        kept = lines.first().left(SessionExporter::kMaxOutputChars) + QLatin1Char('\n');
        keptLines = 1;
    }
    if (keptLines < totalLines)
        kept += (totalLines - keptLines == 1
                     ? SessionExporter::tr("… 1 more line")
                     : SessionExporter::tr("… %1 more lines").arg(totalLines - keptLines)) +
                QLatin1Char('\n');
    return kept;
}

QString toolBlock(const QString &name, const QJsonValue &input, const QJsonValue &output,
                  const QString &error)
{
    QString md = QStringLiteral("**") + SessionExporter::tr("Tool: %1").arg(name) + QStringLiteral("**\n\n");
    const QString inputText = prettyJson(input);
    if (!inputText.isEmpty())
        md += fenced(inputText, input.isObject() || input.isArray() ? QStringLiteral("json") : QString());
    // As the tool's card showed it (a read's text, a command's output), not the JSON the model got.
    QString outputText = ToolOutputText::shown(output);
    if (outputText.trimmed().isEmpty())
        outputText = prettyJson(output);
    if (!outputText.trimmed().isEmpty())
        md += SessionExporter::tr("Output:") + QStringLiteral("\n\n") + fenced(shortened(outputText));
    if (!error.isEmpty())
        md += SessionExporter::tr("Error:") + QStringLiteral("\n\n") + fenced(shortened(error));
    return md;
}

// What the person answered to the permission card the call waited for.
QString answerSentence(const AnsweredPermission &answer)
{
    if (answer.unanswered)
        return SessionExporter::tr("The user was asked about this call; the turn was stopped before an "
                                   "answer, so it did not run.");
    switch (answer.decision) {
    case PermissionDecision::Allow:
        return SessionExporter::tr("The user allowed this call.");
    case PermissionDecision::AllowForSession:
        return SessionExporter::tr("The user allowed this tool for the rest of the session.");
    case PermissionDecision::Deny:
        return SessionExporter::tr("The user denied this call.");
    case PermissionDecision::Redirect:
        return SessionExporter::tr("The user denied this call and said what to do instead.");
    }
    return {};
}

// What the person answered to an ask_user call, below it (its output is JSON a reader should not need to
// read); empty when the call failed and no one was asked.
QString questionAnswerLine(const QJsonValue &output)
{
    const std::optional<UserAnswer> answer = UserAnswer::fromJson(output);
    if (!answer)
        return {};
    const QString said =
        answer->cancelled
            ? SessionExporter::tr("The user cancelled the question.")
            : SessionExporter::tr("The user answered: %1.").arg(answer->answers.join(QStringLiteral("; ")));
    return QLatin1Char('*') + said + QStringLiteral("*\n\n");
}

// The answer, as a reader of the export needs it.
QString permissionLine(const AnsweredPermission &answer)
{
    QString said = answerSentence(answer);
    if (answer.dangerous)
        said += QLatin1Char(' ') + SessionExporter::tr("It was flagged as possibly destructive.");
    return QLatin1Char('*') + said + QStringLiteral("*\n\n");
}

QString diffBlock(const QList<DiffLine> &lines)
{
    QString body;
    for (const DiffLine &line : lines) {
        switch (line.kind) {
        case DiffLine::Kind::Added:
            body += QLatin1Char('+') + line.content + QLatin1Char('\n');
            break;
        case DiffLine::Kind::Removed:
            body += QLatin1Char('-') + line.content + QLatin1Char('\n');
            break;
        case DiffLine::Kind::Hunk:
            body += line.content + QLatin1Char('\n');
            break;
        case DiffLine::Kind::Context:
            body += QLatin1Char(' ') + line.content + QLatin1Char('\n');
            break;
        }
    }
    return body.isEmpty() ? QString() : fenced(shortened(body), QStringLiteral("diff"));
}

// Text, tool calls, bash runs and diffs of one assistant or compaction transcript. Reasoning is left out.
QString transcriptMarkdown(const QList<TranscriptItem> &transcript, bool *hadText)
{
    QString md;
    QString text;
    auto flushText = [&] {
        if (!text.trimmed().isEmpty()) {
            md += text.trimmed() + QStringLiteral("\n\n");
            *hadText = true;
        }
        text.clear();
    };
    // Inputs of started tools, for tool_end items that do not repeat them.
    QJsonValue pendingInput;
    // A call started and not ended: the turn was stopped while it ran (the window shows it "interrupted").
    const TranscriptItem *runningCall = nullptr;
    for (const TranscriptItem &item : transcript) {
        switch (item.kind) {
        case TranscriptItem::Kind::Text:
            text += item.content;
            break;
        case TranscriptItem::Kind::ToolStart:
            pendingInput = item.input;
            runningCall = &item;
            if (item.permission) { // stopped while it asked: the call has no tool_end to carry it
                flushText();
                md += toolBlock(item.name, item.input, QJsonValue(QJsonValue::Undefined), QString()) +
                      permissionLine(*item.permission);
                runningCall = nullptr;
            }
            break;
        case TranscriptItem::Kind::ToolEnd: {
            flushText();
            QJsonValue input = item.input;
            if (input.isUndefined() || input.isNull())
                input = pendingInput;
            md += toolBlock(item.name, input, item.output, item.error);
            if (item.name == QLatin1String("ask_user"))
                md += questionAnswerLine(item.output);
            if (item.permission)
                md += permissionLine(*item.permission);
            pendingInput = QJsonValue();
            runningCall = nullptr;
            break;
        }
        case TranscriptItem::Kind::Bash: {
            flushText();
            md += QStringLiteral("**") + SessionExporter::tr("Bash") + QStringLiteral("**\n\n") +
                  fenced(item.command, QStringLiteral("sh"));
            const QString output = item.bashOutput();
            if (!output.isEmpty())
                md += SessionExporter::tr("Output:") + QStringLiteral("\n\n") + fenced(shortened(output));
            if (!item.error.isEmpty())
                md += SessionExporter::tr("Error:") + QStringLiteral("\n\n") + fenced(shortened(item.error));
            break;
        }
        case TranscriptItem::Kind::Diff:
            flushText();
            md += diffBlock(item.diff);
            break;
        case TranscriptItem::Kind::Notice:
            flushText();
            md += QStringLiteral("> \u26A0 ") + item.content + QStringLiteral("\n\n");
            break;
        case TranscriptItem::Kind::Reasoning:
        case TranscriptItem::Kind::Unknown:
            break;
        }
    }
    flushText();
    if (runningCall)
        md += toolBlock(runningCall->name, runningCall->input, QJsonValue(QJsonValue::Undefined), QString()) +
              QLatin1Char('*') + SessionExporter::tr("Stopped while it ran.") + QStringLiteral("*\n\n");
    return md;
}

QString quoted(const QString &text)
{
    QStringList lines = text.trimmed().split(QLatin1Char('\n'));
    for (QString &line : lines)
        line = line.isEmpty() ? QStringLiteral(">") : QStringLiteral("> ") + line;
    return lines.join(QLatin1Char('\n')) + QStringLiteral("\n\n");
}

} // namespace

QString SessionExporter::toMarkdown(const SessionInfo &info, const QList<SessionEvent> &events)
{
    QString md;
    const QString title = info.title.isEmpty() ? SessionExporter::tr("Untitled session") : info.title;
    md += QStringLiteral("# ") + title + QStringLiteral("\n\n");
    md += QStringLiteral("- ") + SessionExporter::tr("Session: `%1`").arg(info.id) + QLatin1Char('\n');
    if (!info.workspace.isEmpty())
        md += QStringLiteral("- ") + SessionExporter::tr("Workspace: `%1`").arg(info.workspace) +
              QLatin1Char('\n');
    if (info.createdAt.isValid())
        md += QStringLiteral("- ") +
              SessionExporter::tr("Created: %1").arg(info.createdAt.toLocalTime().toString(Qt::ISODate)) +
              QLatin1Char('\n');
    if (info.updatedAt.isValid())
        md += QStringLiteral("- ") +
              SessionExporter::tr("Updated: %1").arg(info.updatedAt.toLocalTime().toString(Qt::ISODate)) +
              QLatin1Char('\n');
    md += QLatin1Char('\n');

    for (const SessionEvent &event : events) {
        switch (event.kind) {
        case SessionEvent::Kind::SessionStarted:
        case SessionEvent::Kind::PinnedContext: // the pin's own "Pinned:" says it already
        case SessionEvent::Kind::Unknown:
            break;
        case SessionEvent::Kind::UserMessage:
            md += QStringLiteral("## ") + SessionExporter::tr("User") + QStringLiteral("\n\n") +
                  event.content().trimmed() + QStringLiteral("\n\n");
            break;
        case SessionEvent::Kind::AssistantTurn: {
            bool hadText = false;
            QString body = transcriptMarkdown(event.transcript(), &hadText);
            if (!hadText && !event.assistantMessage().trimmed().isEmpty())
                body.prepend(event.assistantMessage().trimmed() + QStringLiteral("\n\n"));
            if (event.interrupted())
                body += QLatin1Char('*') + SessionExporter::tr("Interrupted.") + QStringLiteral("*\n\n");
            if (!event.error().isEmpty())
                body += QStringLiteral("> **") + SessionExporter::tr("Error:") + QStringLiteral("** ") +
                        event.error().trimmed() + QStringLiteral("\n\n");
            if (!body.isEmpty())
                md +=
                    QStringLiteral("## ") + SessionExporter::tr("Assistant") + QStringLiteral("\n\n") + body;
            break;
        }
        case SessionEvent::Kind::CompactionApplied: {
            if (!md.endsWith(QStringLiteral("---\n\n"))) // one rule between two compactions, not two
                md += QStringLiteral("---\n\n");
            const QString status = event.status();
            if (status.isEmpty()) {
                // The automatic summary is the model's private context; only the fact is shown.
                md += QLatin1Char('*') + SessionExporter::tr("Context compacted automatically.") +
                      QStringLiteral("*\n\n");
            } else {
                md += QStringLiteral("*✓ ") + status + QStringLiteral("*\n\n");
                bool hadText = false;
                const QString summary = transcriptMarkdown(event.transcript(), &hadText);
                if (!summary.isEmpty())
                    md += quoted(summary);
            }
            md += QStringLiteral("---\n\n");
            break;
        }
        case SessionEvent::Kind::CompactionReverted:
            md += QStringLiteral("*↶ ") + SessionExporter::tr("Compaction undone.") + QStringLiteral("*\n\n");
            break;
        case SessionEvent::Kind::CompactionPolicy:
            md += QLatin1Char('*') +
                  SessionExporter::tr("Compaction policy: %1.").arg(event.policy()->policy.describe()) +
                  QStringLiteral("*\n\n");
            break;
        case SessionEvent::Kind::PinAdded:
            md += QStringLiteral("*") + SessionExporter::tr("Pinned:") + QStringLiteral("*\n\n") +
                  quoted(event.pinAdd()->pin.shownText()); // a tool result as its card showed it, not JSON
            break;
        case SessionEvent::Kind::PinRemoved:
            md += QStringLiteral("*") + SessionExporter::tr("A pin was removed.") + QStringLiteral("*\n\n");
            break;
        }
    }
    while (md.endsWith(QStringLiteral("\n\n")))
        md.chop(1);
    return md;
}

Result<void> SessionExporter::exportToFile(const SessionStore &store, const QString &sessionIdOrPath,
                                           const QString &filePath)
{
    const auto loaded = store.load(sessionIdOrPath);
    if (!loaded)
        return Result<void>::failure(loaded.error());
    SessionInfo info;
    if (const auto found = store.find(loaded->session.id))
        info = *found;
    if (info.id.isEmpty()) {
        info.id = loaded->session.id;
        info.workspace = loaded->session.workspace;
    }
    QSaveFile file(filePath);
    if (!file.open(QIODevice::WriteOnly))
        return Result<void>::failure(
            SessionExporter::tr("Cannot write %1: %2").arg(filePath, file.errorString()));
    file.write(toMarkdown(info, loaded->events).toUtf8());
    if (!file.commit())
        return Result<void>::failure(
            SessionExporter::tr("Cannot write %1: %2").arg(filePath, file.errorString()));
    return {};
}

} // namespace keen
