#pragma once

#include "base/result.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace keen {

// Flags shared by the window and `keen-desktop run`: they override the configured provider and model for
// this process only.
struct LaunchOptions
{
    QString provider;
    QString model;
    QString baseUrl;
    QString workspace; // absolute; the current directory when not given
    std::optional<qint64> contextWindow;
    QString sessionId;
    QStringList positional; // what is left after the flags

    // Parses argv (argv[0] included). Unknown flags are errors; `extraFlags` lists flags with a value that
    // the caller handles (returned in `extra`).
    static Result<LaunchOptions> parse(const QStringList &arguments);
    // The window's `keen-desktop DIR` (also what a file manager's "Open With" passes): one positional folder
    // becomes the workspace. Anything else left over is an error that names it.
    Result<void> takeFolderArgument();
};

} // namespace keen
