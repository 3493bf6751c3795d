#pragma once

#include <QStringList>
#include <QTextStream>

namespace keen {

// `keen-desktop sessions [--all] [--json] [--search QUERY] [--workspace DIR]`: the saved sessions of the
// workspace (the current directory unless --workspace), or of every workspace with --all, newest first.
// Text: a table of id, update time and title (with --search, each match's snippet under its row).
// --json: an array of {id, path, workspace, title, created_at, updated_at, last_seq, last_user_message}, plus
// "snippet" with --search (matches marked with **). Returns 0, 1 after "Error: <reason>" on err, or 2 after
// the usage on err for a bad flag.
int runSessionsCommand(const QStringList &args, QTextStream &out, QTextStream &err);

QString sessionsUsageText();

} // namespace keen
