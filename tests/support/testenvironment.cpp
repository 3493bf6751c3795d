#include "testenvironment.h"

#include "config/settings.h"
#include "config/settingswriter.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTest>

namespace keen::test {

TestEnvironment::TestEnvironment()
{
    QStandardPaths::setTestModeEnabled(true);
    m_hadHome = qEnvironmentVariableIsSet("KEEN_HOME");
    m_previousHome = qgetenv("KEEN_HOME");
    qputenv("KEEN_HOME", m_dir.path().toUtf8());
}

TestEnvironment::~TestEnvironment()
{
    SettingsWriter::waitForWrites(); // nothing is written into the folder once it is gone
    if (m_hadHome)
        qputenv("KEEN_HOME", m_previousHome);
    else
        qunsetenv("KEEN_HOME");
}

QString fixturePath(const QString &relativePath)
{
    return QStringLiteral(KEEN_FIXTURES_DIR "/") + relativePath;
}

void removeSettingsFile()
{
    SettingsWriter::waitForWrites();
    QFile::remove(Settings::defaultPath());
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

bool writeFakeMcpServers(const QString &dataDir)
{
    const QString server = QStringLiteral(KEEN_FAKE_MCP_SERVER);
    const QJsonObject servers{
        {QStringLiteral("servers"),
         QJsonObject{{QStringLiteral("fake"), QJsonObject{{QStringLiteral("command"), server}}},
                     {QStringLiteral("broken"),
                      QJsonObject{{QStringLiteral("command"), server},
                                  {QStringLiteral("args"), QJsonArray{QStringLiteral("--fail-start")}}}}}}};
    const QString path = QDir(dataDir).filePath(QStringLiteral("mcp/configs.json"));
    if (!writeFile(path, QJsonDocument(servers).toJson()))
        return false;
    return QFile::setPermissions(QFileInfo(path).absolutePath(),
                                 QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner) &&
           QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
}

QByteArray readFixture(const QString &relativePath)
{
    QFile file(fixturePath(relativePath));
    if (!file.open(QIODevice::ReadOnly)) {
        qWarning("missing fixture %s", qPrintable(relativePath));
        return {};
    }
    return file.readAll();
}

} // namespace keen::test
