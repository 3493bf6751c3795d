#include "headless/sessionscommand.h"

#include "headless/streamoutput.h"
#include "session/sessionindex.h"
#include "session/sessionstore.h"

#include <QCoreApplication>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace keen {

namespace {

// A title comes from what someone typed (or a model wrote): control characters, escape sequences included,
// are shown as a visible mark instead of reaching the terminal, where they could move the cursor or recolour
// it.
QString printable(const QString &text)
{
    QString shown = text;
    for (QChar &c : shown) {
        if (c.category() == QChar::Other_Control || c == QChar::LineSeparator ||
            c == QChar::ParagraphSeparator)
            c = QChar(0xFFFD);
    }
    return shown;
}

// The translation context of this file's free functions.
class SessionsCommand
{
    Q_DECLARE_TR_FUNCTIONS(SessionsCommand)
};

} // namespace

namespace {

struct Options
{
    bool all = false;
    bool json = false;
    bool help = false;
    std::optional<QString> search;
    QString workspace;
};

// Returns the error for a bad flag, or an empty string.
QString parse(const QStringList &args, Options *options)
{
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        auto value = [&](const QString &flag, QString *target) -> QString {
            if (arg.startsWith(flag + QLatin1Char('='))) {
                *target = arg.mid(flag.size() + 1);
                return {};
            }
            if (i + 1 >= args.size())
                return SessionsCommand::tr("%1 needs a value").arg(flag);
            *target = args.at(++i);
            return {};
        };
        if (arg == QLatin1String("--all")) {
            options->all = true;
        } else if (arg == QLatin1String("--json")) {
            options->json = true;
        } else if (arg == QLatin1String("--help") || arg == QLatin1String("-h")) {
            options->help = true;
        } else if (arg == QLatin1String("--search") || arg.startsWith(QLatin1String("--search="))) {
            QString query;
            if (QString error = value(QStringLiteral("--search"), &query); !error.isEmpty())
                return error;
            if (query.trimmed().isEmpty())
                return SessionsCommand::tr("--search needs a value");
            options->search = query;
        } else if (arg == QLatin1String("--workspace") || arg.startsWith(QLatin1String("--workspace="))) {
            if (QString error = value(QStringLiteral("--workspace"), &options->workspace); !error.isEmpty())
                return error;
            if (options->workspace.isEmpty())
                return SessionsCommand::tr("--workspace needs a folder");
        } else {
            return SessionsCommand::tr("unknown argument %1").arg(arg);
        }
    }
    return {};
}

QString timestamp(const QDateTime &when)
{
    return when.isValid() ? when.toUTC().toString(Qt::ISODateWithMs) : QString();
}

// The last prompt in --json is for telling sessions apart, like the title of the table: a pasted log would
// otherwise put up to megabytes per session into the listing (tried as a user, 2026-12-04).
QJsonObject toJson(const SessionInfo &info)
{
    QJsonObject object{
        {QStringLiteral("id"), info.id},
        {QStringLiteral("path"), info.path},
        {QStringLiteral("workspace"), info.workspace},
        {QStringLiteral("title"), info.title},
        {QStringLiteral("created_at"), timestamp(info.createdAt)},
        {QStringLiteral("updated_at"), timestamp(info.updatedAt)},
        {QStringLiteral("last_seq"), qint64(info.lastSeq)},
        {QStringLiteral("last_user_message"), info.lastUserMessage},
    };
    if (!info.problem.isEmpty())
        object.insert(QStringLiteral("error"), info.problem);
    return object;
}

void printTable(QTextStream &out, const QList<SessionInfo> &sessions, const QStringList &snippets)
{
    qsizetype idWidth = SessionsCommand::tr("ID").size();
    for (const SessionInfo &info : sessions)
        idWidth = qMax(idWidth, info.id.size());
    const QString timeFormat = QStringLiteral("yyyy-MM-dd HH:mm");
    const qsizetype timeWidth = qMax(timeFormat.size(), SessionsCommand::tr("UPDATED").size());
    out << SessionsCommand::tr("ID").leftJustified(idWidth) << "  "
        << SessionsCommand::tr("UPDATED").leftJustified(timeWidth) << "  " << SessionsCommand::tr("TITLE")
        << "\n";
    for (qsizetype i = 0; i < sessions.size(); ++i) {
        const SessionInfo &info = sessions.at(i);
        QString title = info.title.isEmpty() ? SessionsCommand::tr("(untitled)") : info.title;
        if (!info.problem.isEmpty())
            title = SessionsCommand::tr("(unreadable) %1").arg(info.title);
        out << printable(info.id).leftJustified(idWidth) << "  "
            << info.updatedAt.toLocalTime().toString(timeFormat).leftJustified(timeWidth) << "  "
            << printable(title) << "\n";
        if (i < snippets.size() && !snippets.at(i).isEmpty())
            out << QString(idWidth + 2, QLatin1Char(' ')) << printable(snippets.at(i)) << "\n";
    }
}

} // namespace

QString sessionsUsageText()
{
    return SessionsCommand::tr(
        "Usage: keen-desktop sessions [--all] [--json] [--search QUERY] [--workspace DIR]\n"
        "  --all              sessions of every workspace, not only this one\n"
        "  --json             print a JSON array instead of a table\n"
        "  --search QUERY     only sessions whose messages or tool output contain every word\n"
        "  --workspace DIR    the workspace to list (default: the current directory)\n");
}

int runSessionsCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    Options options;
    if (const QString error = parse(args, &options); !error.isEmpty()) {
        err << SessionsCommand::tr("Error: %1").arg(error) << "\n\n" << sessionsUsageText();
        err.flush();
        return 2;
    }
    if (options.help) {
        out << sessionsUsageText();
        out.flush();
        return 0;
    }

    const QString workspace =
        options.all
            ? QString()
            : QDir::cleanPath(
                  QDir(options.workspace.isEmpty() ? QDir::currentPath() : options.workspace).absolutePath());
    QList<SessionInfo> sessions;
    QStringList snippets;
    if (options.search) {
        SessionIndex index(SessionStore::defaultRoot());
        int matching = 0;
        const auto hits = index.search(*options.search, workspace, SessionIndex::kSearchLimit, &matching);
        if (!hits) {
            err << SessionsCommand::tr("Error: %1").arg(hits.error()) << "\n";
            err.flush();
            return 1;
        }
        if (matching > hits->size())
            err << SessionsCommand::tr("Showing the newest %1 of %2 matching sessions; add words to narrow "
                                       "the search.")
                       .arg(hits->size())
                       .arg(matching)
                << "\n";
        for (const SessionSearchHit &hit : *hits) {
            sessions.append(hit.session);
            snippets.append(hit.markedSnippet(QStringLiteral("**"), QStringLiteral("**")));
        }
    } else {
        const SessionStore store(SessionStore::defaultRoot());
        sessions = store.list(workspace);
    }

    // A session whose transcript cannot be read is listed, and stderr says which file and why.
    for (const SessionInfo &info : std::as_const(sessions)) {
        if (!info.problem.isEmpty())
            err << SessionsCommand::tr("Warning: %1").arg(info.problem) << "\n";
    }
    err.flush();

    if (options.json) {
        QJsonArray array;
        for (qsizetype i = 0; i < sessions.size(); ++i) {
            QJsonObject object = toJson(sessions.at(i));
            if (options.search)
                object.insert(QStringLiteral("snippet"), snippets.value(i));
            array.append(object);
        }
        StreamOutput::writeUtf8(out, QJsonDocument(array).toJson(QJsonDocument::Indented));
        out.flush();
        return 0;
    }

    if (sessions.isEmpty()) {
        if (options.search)
            out << SessionsCommand::tr("No saved sessions match \"%1\".").arg(options.search->trimmed())
                << "\n";
        else if (options.all)
            out << SessionsCommand::tr("No saved sessions.") << "\n";
        else
            out << SessionsCommand::tr("No saved sessions for this directory.") << "\n";
        out.flush();
        return 0;
    }
    printTable(out, sessions, snippets);
    out.flush();
    return 0;
}

} // namespace keen
