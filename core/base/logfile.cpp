#include "base/logfile.h"

#include "base/appfolders.h"
#include "base/privatefolder.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QLoggingCategory>
#include <QMutex>

#include <memory>

namespace keen {

namespace {

struct State
{
    QMutex mutex;
    QString folder;
    LogFile::Level level = LogFile::Level::Warning;
    std::unique_ptr<QFile> file;
    QString path;
    bool failed = false; // the file could not be made: not tried again for every line
    QtMessageHandler previous = nullptr;
    bool installed = false;
};

State &state()
{
    static State instance;
    return instance;
}

LogFile::Level levelOf(QtMsgType type)
{
    switch (type) {
    case QtDebugMsg:
        return LogFile::Level::Debug;
    case QtInfoMsg:
        return LogFile::Level::Info;
    case QtWarningMsg:
        return LogFile::Level::Warning;
    case QtCriticalMsg:
    case QtFatalMsg:
        return LogFile::Level::Error;
    }
    return LogFile::Level::Error;
}

const char *nameOf(QtMsgType type)
{
    switch (type) {
    case QtDebugMsg:
        return "debug";
    case QtInfoMsg:
        return "info";
    case QtWarningMsg:
        return "warning";
    case QtCriticalMsg:
        return "critical";
    case QtFatalMsg:
        return "fatal";
    }
    return "?";
}

void write(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    State &s = state();
    QtMessageHandler previous = nullptr;
    {
        const QMutexLocker lock(&s.mutex);
        previous = s.previous;
        if (levelOf(type) >= s.level && !s.failed) {
            if (!s.file) {
                const QString name =
                    QStringLiteral("keen-desktop-%1-%2.log")
                        .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")))
                        .arg(QCoreApplication::applicationPid());
                s.file = std::make_unique<QFile>(QDir(s.folder).filePath(name));
                if (!PrivateFolder::ensure(s.folder) || !s.file->open(QIODevice::Append | QIODevice::Text)) {
                    s.failed = true;
                    s.file.reset();
                } else {
                    s.file->setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
                    s.path = s.file->fileName();
                }
            }
            if (s.file) {
                const QByteArray line = QDateTime::currentDateTime().toString(Qt::ISODateWithMs).toUtf8() +
                                        ' ' + nameOf(type) + ' ' +
                                        QByteArray(context.category ? context.category : "default") + ": " +
                                        message.toUtf8() + '\n';
                s.file->write(line);
                s.file->flush(); // a crash right after still leaves the line
            }
        }
    }
    // stderr keeps what it had: the keen.* lines below warnings that KEEN_LOG_LEVEL turned on are for the
    // file only, unless QT_LOGGING_RULES asked for them too.
    const bool keenDetail = levelOf(type) < LogFile::Level::Warning && context.category &&
                            QByteArrayView(context.category).startsWith("keen.");
    if (!keenDetail || !qEnvironmentVariableIsEmpty("QT_LOGGING_RULES")) {
        if (previous)
            previous(type, context, message);
    }
}

} // namespace

Result<LogFile::Level> LogFile::parseLevel(const QString &text)
{
    const QString value = text.trimmed().toLower();
    if (value == QLatin1String("debug"))
        return Level::Debug;
    if (value == QLatin1String("info"))
        return Level::Info;
    if (value == QLatin1String("warn") || value == QLatin1String("warning"))
        return Level::Warning;
    if (value == QLatin1String("error"))
        return Level::Error;
    return Result<Level>::failure(
        QCoreApplication::translate("LogFile",
                                    "KEEN_LOG_LEVEL must be debug, info, warn or error, not \"%1\"")
            .arg(text));
}

QString LogFile::defaultFolder()
{
    return QDir(AppFolders::data()).filePath(QStringLiteral("logs"));
}

void LogFile::install(const QString &folder, Level level)
{
    State &s = state();
    {
        const QMutexLocker lock(&s.mutex);
        if (s.folder != folder) {
            s.file.reset();
            s.path.clear();
            s.failed = false;
        }
        s.folder = folder;
        s.level = level;
    }
    // keen.* debug and info lines are off by default (LogCategories); the file wants them at its level.
    if (level == Level::Debug)
        QLoggingCategory::setFilterRules(QStringLiteral("keen.*.debug=true\nkeen.*.info=true"));
    else if (level == Level::Info)
        QLoggingCategory::setFilterRules(QStringLiteral("keen.*.info=true"));
    if (!s.installed) {
        s.previous = qInstallMessageHandler(write);
        s.installed = true;
    }
}

QString LogFile::currentPath()
{
    State &s = state();
    const QMutexLocker lock(&s.mutex);
    return s.path;
}

void LogFile::uninstall()
{
    State &s = state();
    if (!s.installed)
        return;
    qInstallMessageHandler(s.previous);
    QLoggingCategory::setFilterRules(QString());
    const QMutexLocker lock(&s.mutex);
    s.installed = false;
    s.file.reset();
    s.path.clear();
    s.failed = false;
}

} // namespace keen
