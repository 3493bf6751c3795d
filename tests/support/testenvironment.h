#pragma once

#include <QString>
#include <QTemporaryDir>

namespace keen::test {

// Points KEEN_HOME at a fresh temporary folder for the lifetime of the object, so no test touches real data.
class TestEnvironment
{
public:
    TestEnvironment();
    ~TestEnvironment();
    QString home() const { return m_dir.path(); }
    QString path(const QString &relative) const { return m_dir.filePath(relative); }

private:
    QTemporaryDir m_dir;
    QByteArray m_previousHome;
    bool m_hadHome = false;
};

// Removes KEEN_HOME's settings.json once the window's queued changes of it are written (or one written
// after would bring it back).
void removeSettingsFile();

// Writes bytes to path, making the folders above it; false when it cannot.
bool writeFile(const QString &path, const QByteArray &bytes);

// Writes <dataDir>/mcp/configs.json (folder 0700, file 0600) with two servers, both the tests' stand-in MCP
// program (tests/mcpserver): "fake", which works, and "broken", which exits at start with a message on
// stderr.
bool writeFakeMcpServers(const QString &dataDir);

// Reads a file from tests/fixtures (relative path), failing the test when it is missing.
QByteArray readFixture(const QString &relativePath);
QString fixturePath(const QString &relativePath);

} // namespace keen::test
