#include "config/launchoptions.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace keen {

Result<LaunchOptions> LaunchOptions::parse(const QStringList &arguments)
{
    LaunchOptions options;
    auto takeValue = [&arguments](qsizetype &i, const QString &flag, QString &error) -> QString {
        const QString argument = arguments.at(i);
        const qsizetype eq = argument.indexOf(QLatin1Char('='));
        if (eq > 0)
            return argument.mid(eq + 1);
        if (i + 1 >= arguments.size()) {
            error = QCoreApplication::translate("LaunchOptions", "%1 needs a value").arg(flag);
            return {};
        }
        return arguments.at(++i);
    };
    for (qsizetype i = 1; i < arguments.size(); ++i) {
        const QString argument = arguments.at(i);
        const QString flag = argument.section(QLatin1Char('='), 0, 0);
        QString error;
        if (flag == QLatin1String("--provider"))
            options.provider = takeValue(i, flag, error);
        else if (flag == QLatin1String("--model"))
            options.model = takeValue(i, flag, error);
        else if (flag == QLatin1String("--base-url"))
            options.baseUrl = takeValue(i, flag, error);
        else if (flag == QLatin1String("--workspace"))
            options.workspace = takeValue(i, flag, error);
        else if (flag == QLatin1String("--session") || flag == QLatin1String("--resume"))
            options.sessionId = takeValue(i, flag, error);
        else if (flag == QLatin1String("--context-window")) {
            const QString value = takeValue(i, flag, error);
            if (error.isEmpty()) {
                bool ok = false;
                const qint64 window = value.toLongLong(&ok);
                if (!ok || window <= 0)
                    error = QCoreApplication::translate("LaunchOptions",
                                                        "--context-window needs a positive number of tokens, "
                                                        "not \"%1\"")
                                .arg(value);
                else
                    options.contextWindow = window;
            }
        } else if (argument.startsWith(QLatin1String("--")) && argument.size() > 2) {
            error = QCoreApplication::translate("LaunchOptions", "unknown flag %1").arg(flag);
        } else {
            options.positional.append(argument);
        }
        if (!error.isEmpty())
            return Result<LaunchOptions>::failure(error);
    }
    if (!options.workspace.isEmpty()) {
        const QFileInfo info(options.workspace);
        if (!info.isDir())
            return Result<LaunchOptions>::failure(
                QCoreApplication::translate("LaunchOptions", "workspace %1 is not a folder")
                    .arg(options.workspace));
        options.workspace = info.canonicalFilePath();
    }
    return options;
}

Result<void> LaunchOptions::takeFolderArgument()
{
    if (positional.isEmpty())
        return {};
    const QFileInfo folder(positional.constFirst());
    if (positional.size() > 1 || !workspace.isEmpty() || !folder.isDir())
        return Result<void>::failure(QCoreApplication::translate("LaunchOptions", "%1 is not a folder")
                                         .arg(positional.join(QLatin1Char(' '))));
    workspace = folder.canonicalFilePath();
    positional.clear();
    return {};
}

} // namespace keen
