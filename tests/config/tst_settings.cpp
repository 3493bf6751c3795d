// settings.json (reference 8.1): defaults, round trip, atomic private save, clear errors naming file and key.
#include "config/settings.h"
#include "testenvironment.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QTest>

#include <sys/stat.h>

using namespace keen;

namespace {

void writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(bytes);
}

QFileDevice::Permissions modeOf(const QString &path)
{
    return QFileInfo(path).permissions() &
           (QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner |
            QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup |
            QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther);
}

} // namespace

class TestSettings : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void pathFollowsKeenHome();
    void missingFileGivesDefaults();
    void readsReferenceShapedFile();
    void saveRoundTripsAndKeepsUnknownKeys();
    void saveIsPrivate();
    void badJsonNamesTheFile();
    void wrongTypesNameFileAndKey_data();
    void wrongTypesNameFileAndKey();
    void recentFoldersAndColorSchemeRoundTrip();
    void modifyKeepsOtherKeysAndRefusesABrokenFile();
    void settingsBackAtTheirDefaultStayThere();
    void damagedFileKeepsItsValidKeysAndSaysWhy();
    void fileThatIsNotARegularFileIsNamedAndNeverRead_data();
    void fileThatIsNotARegularFileIsNamedAndNeverRead();
};

void TestSettings::pathFollowsKeenHome()
{
    test::TestEnvironment env;
    QCOMPARE(Settings::configDirectory(), env.home());
    QCOMPARE(Settings::defaultPath(), env.path(QStringLiteral("settings.json")));
}

void TestSettings::missingFileGivesDefaults()
{
    test::TestEnvironment env;
    const auto settings = Settings::load();
    QVERIFY2(settings.ok(), qPrintable(settings.error()));
    QVERIFY(settings->showThinking);
    QCOMPARE(settings->toolHistory, Settings::ToolHistory::None);
    QVERIFY(!settings->contextWindow);
    QVERIFY(settings->providers.isEmpty());
    QVERIFY(!QFile::exists(Settings::defaultPath())); // loading never writes
}

void TestSettings::readsReferenceShapedFile()
{
    test::TestEnvironment env;
    writeFile(Settings::defaultPath(), R"({
        "active_provider": "anthropic", "active_model": "claude-sonnet-4-6",
        "thinking_effort": "high", "show_thinking": false, "tool_history": "full", "context_window": 150000,
        "adversary_provider": "openai", "adversary_model": "gpt-5.5", "future_key": "kept",
        "providers": {
            "anthropic": {"models": ["claude-sonnet-4-6"], "api_key_helper": "pass show anthropic",
                          "headers": {"x-team": "core"}},
            "openai-compatible": {"base_url": "http://localhost:11434/v1", "models": ["qwen3"],
                                  "context_window": 32768, "context_windows": {"qwen3-big": 131072}}
        }})");
    const auto settings = Settings::load();
    QVERIFY2(settings.ok(), qPrintable(settings.error()));
    QCOMPARE(settings->activeProvider, QStringLiteral("anthropic"));
    QCOMPARE(settings->activeModel, QStringLiteral("claude-sonnet-4-6"));
    QCOMPARE(settings->thinkingEffort, QStringLiteral("high"));
    QVERIFY(!settings->showThinking);
    QCOMPARE(settings->toolHistory, Settings::ToolHistory::Full);
    QCOMPARE(settings->contextWindow, std::optional<qint64>(150000));
    QCOMPARE(settings->providers.size(), 2);
    const ProviderSettings anthropic = settings->provider(QStringLiteral("anthropic"));
    QCOMPARE(anthropic.models, QStringList{QStringLiteral("claude-sonnet-4-6")});
    QCOMPARE(anthropic.apiKeyHelper, QStringLiteral("pass show anthropic"));
    QCOMPARE(anthropic.headers.value(QStringLiteral("x-team")), QStringLiteral("core"));
    QCOMPARE(settings->provider(QStringLiteral("openai-compatible")).baseUrl,
             QStringLiteral("http://localhost:11434/v1"));
    // A provider's own window wins over the top-level one, for that provider only.
    QCOMPARE(settings->provider(QStringLiteral("openai-compatible")).contextWindow,
             std::optional<qint64>(32768));
    QCOMPARE(settings->contextWindowFor(QStringLiteral("openai-compatible")), std::optional<qint64>(32768));
    QCOMPARE(settings->contextWindowFor(QStringLiteral("anthropic")), std::optional<qint64>(150000));
    // A model's own window wins over its provider's, for that model only.
    QCOMPARE(settings->contextWindowFor(QStringLiteral("openai-compatible"), QStringLiteral("qwen3-big")),
             std::optional<qint64>(131072));
    QCOMPARE(settings->contextWindowFor(QStringLiteral("openai-compatible"), QStringLiteral("qwen3")),
             std::optional<qint64>(32768));
    // /adversary model's choice, as the reference agent names it; a key this version does not know is kept.
    QCOMPARE(settings->adversaryProvider, QStringLiteral("openai"));
    QCOMPARE(settings->adversaryModel, QStringLiteral("gpt-5.5"));
    QCOMPARE(settings->extra.value(QStringLiteral("future_key")).toString(), QStringLiteral("kept"));
}

void TestSettings::saveRoundTripsAndKeepsUnknownKeys()
{
    test::TestEnvironment env;
    Settings settings;
    settings.activeProvider = QStringLiteral("openai");
    settings.activeModel = QStringLiteral("gpt-5.5");
    settings.thinkingEffort = QStringLiteral("low");
    settings.showThinking = false;
    settings.toolHistory = Settings::ToolHistory::Full;
    settings.contextWindow = 64000;
    ProviderSettings provider;
    provider.baseUrl = QStringLiteral("https://proxy.example/v1");
    provider.headers.insert(QStringLiteral("x-a"), QStringLiteral("b"));
    provider.models = {QStringLiteral("gpt-5.5"), QStringLiteral("gpt-5.4")};
    provider.extra.insert(QStringLiteral("future_field"), 7);
    provider.contextWindow = 400000;
    provider.modelContextWindows.insert(QStringLiteral("gpt-5.4"), 272000);
    settings.providers.insert(QStringLiteral("openai"), provider);
    settings.adversaryProvider = QStringLiteral("anthropic");
    settings.adversaryModel = QStringLiteral("claude-opus-4-5");
    settings.extra.insert(QStringLiteral("future_key"), QStringLiteral("x"));
    QVERIFY(settings.save().ok());
    const auto loaded = Settings::load();
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    QCOMPARE(*loaded, settings);
}

void TestSettings::saveIsPrivate()
{
    test::TestEnvironment env;
    const QString path = env.path(QStringLiteral("nested/config/settings.json"));
    Settings settings;
    settings.activeProvider = QStringLiteral("anthropic");
    QVERIFY(settings.save(path).ok());
    QCOMPARE(modeOf(path), QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    QCOMPARE(modeOf(QFileInfo(path).path()),
             QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    // Saving over an existing file keeps it private and leaves no temporary file.
    settings.activeModel = QStringLiteral("m");
    QVERIFY(settings.save(path).ok());
    QCOMPARE(modeOf(path), QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    QCOMPARE(QDir(QFileInfo(path).path()).entryList(QDir::Files | QDir::Hidden),
             QStringList{QStringLiteral("settings.json")});
}

void TestSettings::badJsonNamesTheFile()
{
    test::TestEnvironment env;
    writeFile(Settings::defaultPath(), "{\"active_provider\": \"openai\",");
    const auto settings = Settings::load();
    QVERIFY(!settings.ok());
    QVERIFY2(settings.error().contains(Settings::defaultPath()), qPrintable(settings.error()));
    QVERIFY2(settings.error().contains(QStringLiteral("not valid JSON")), qPrintable(settings.error()));
    writeFile(Settings::defaultPath(), "[1, 2]");
    QVERIFY(!Settings::load().ok());
    QVERIFY(Settings::load().error().contains(Settings::defaultPath()));
}

void TestSettings::wrongTypesNameFileAndKey_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("key");
    QTest::newRow("show_thinking") << QByteArray(R"({"show_thinking": "yes"})")
                                   << QStringLiteral("show_thinking");
    QTest::newRow("compaction_review")
        << QByteArray(R"({"compaction_review": "yes"})") << QStringLiteral("compaction_review");
    QTest::newRow("tool_history") << QByteArray(R"({"tool_history": "all"})")
                                  << QStringLiteral("tool_history");
    QTest::newRow("context_window") << QByteArray(R"({"context_window": -5})")
                                    << QStringLiteral("context_window");
    QTest::newRow("context_window huge")
        << QByteArray(R"({"context_window": 1e300})") << QStringLiteral("context_window");
    QTest::newRow("context_window fraction")
        << QByteArray(R"({"context_window": 1000.5})") << QStringLiteral("context_window");
    QTest::newRow("active_provider") << QByteArray(R"({"active_provider": 3})")
                                     << QStringLiteral("active_provider");
    QTest::newRow("providers") << QByteArray(R"({"providers": []})") << QStringLiteral("providers");
    QTest::newRow("provider") << QByteArray(R"({"providers": {"openai": 1}})")
                              << QStringLiteral("providers.openai");
    QTest::newRow("models") << QByteArray(R"({"providers": {"openai": {"models": "gpt"}}})")
                            << QStringLiteral("providers.openai.models");
    QTest::newRow("provider context_window")
        << QByteArray(R"({"providers": {"ollama": {"context_window": "8k"}}})")
        << QStringLiteral("providers.ollama.context_window");
    QTest::newRow("model context_windows")
        << QByteArray(R"({"providers": {"ollama": {"context_windows": {"llama3": 0}}}})")
        << QStringLiteral("providers.ollama.context_windows.llama3");
    QTest::newRow("context_windows") << QByteArray(
                                            R"({"providers": {"ollama": {"context_windows": [8192]}}})")
                                     << QStringLiteral("providers.ollama.context_windows");
    QTest::newRow("headers") << QByteArray(R"({"providers": {"openai": {"headers": {"x": 1}}}})")
                             << QStringLiteral("providers.openai.headers.x");
    QTest::newRow("recent_folders") << QByteArray(R"({"recent_folders": "/tmp"})")
                                    << QStringLiteral("recent_folders");
    QTest::newRow("recent_folder") << QByteArray(R"({"recent_folders": ["/tmp", 4]})")
                                   << QStringLiteral("recent_folders");
    QTest::newRow("pin_budget_percent")
        << QByteArray(R"({"pin_budget_percent": 0})") << QStringLiteral("pin_budget_percent");
    QTest::newRow("pin_budget_percent over 100")
        << QByteArray(R"({"pin_budget_percent": 150})") << QStringLiteral("pin_budget_percent");
    QTest::newRow("zoom_percent under 50")
        << QByteArray(R"({"zoom_percent": 20})") << QStringLiteral("zoom_percent");
    QTest::newRow("zoom_percent text")
        << QByteArray(R"({"zoom_percent": "big"})") << QStringLiteral("zoom_percent");
    QTest::newRow("color_scheme") << QByteArray(R"({"color_scheme": "sepia"})")
                                  << QStringLiteral("color_scheme");
    QTest::newRow("api_key") << QByteArray(
                                    R"({"providers": {"openai": {"api_key": ["sk-canary-1234567890"]}}})")
                             << QStringLiteral("providers.openai.api_key");
}

void TestSettings::wrongTypesNameFileAndKey()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, key);
    test::TestEnvironment env;
    writeFile(Settings::defaultPath(), json);
    const auto settings = Settings::load();
    QVERIFY(!settings.ok());
    QVERIFY2(settings.error().contains(Settings::defaultPath()), qPrintable(settings.error()));
    QVERIFY2(settings.error().contains(QLatin1Char('"') + key + QLatin1Char('"')),
             qPrintable(settings.error()));
    QVERIFY(!settings.error().contains(QStringLiteral("sk-canary")));
}

void TestSettings::recentFoldersAndColorSchemeRoundTrip()
{
    test::TestEnvironment env;
    Settings settings;
    for (int i = 0; i < 14; ++i)
        settings.addRecentFolder(QStringLiteral("/work/project-%1").arg(i));
    settings.addRecentFolder(QStringLiteral("/work/project-5")); // reopened: moves to the front, once
    QCOMPARE(settings.recentFolders.size(), Settings::MaxRecentFolders);
    QCOMPARE(settings.recentFolders.first(), QStringLiteral("/work/project-5"));
    QCOMPARE(settings.recentFolders.count(QStringLiteral("/work/project-5")), 1);
    QCOMPARE(settings.recentFolders.at(1), QStringLiteral("/work/project-13"));
    settings.colorScheme = Settings::ColorScheme::Dark;
    settings.pinBudgetPercent = 25; // issue 16
    settings.zoomPercent = 130;     // View > Zoom In, three times
    QVERIFY(settings.save().ok());
    const QByteArray json = [] {
        QFile file(Settings::defaultPath());
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }();
    QVERIFY(json.contains("\"recent_folders\""));
    QVERIFY(json.contains("\"color_scheme\": \"dark\""));
    QVERIFY(json.contains("\"pin_budget_percent\": 25"));
    QVERIFY(json.contains("\"zoom_percent\": 130"));
    const auto loaded = Settings::load();
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    QCOMPARE(*loaded, settings);
}

// A setting written only when it differs from its default (the compaction review, the zoom) was kept as an
// unknown key once on disk, so turning it back off (or zooming back to 100%) came back on at the next start.
void TestSettings::settingsBackAtTheirDefaultStayThere()
{
    test::TestEnvironment env;
    QVERIFY(Settings::modify([](Settings &settings) {
                settings.reviewCompaction = true;
                settings.zoomPercent = 150;
            }).ok());
    QVERIFY(Settings::modify([](Settings &settings) {
                settings.reviewCompaction = false;
                settings.zoomPercent = 100;
            }).ok());
    const auto loaded = Settings::load();
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    QCOMPARE(loaded->reviewCompaction, false);
    QCOMPARE(loaded->zoomPercent, 100);
    QVERIFY(loaded->extra.isEmpty());
}

void TestSettings::modifyKeepsOtherKeysAndRefusesABrokenFile()
{
    test::TestEnvironment env;
    writeFile(Settings::defaultPath(), R"({"active_provider": "ollama", "future_key": [1, 2]})");
    const auto changed = Settings::modify([](Settings &settings) { settings.showThinking = false; });
    QVERIFY2(changed.ok(), qPrintable(changed.error()));
    const auto loaded = Settings::load();
    QVERIFY(loaded.ok());
    QCOMPARE(loaded->activeProvider, QStringLiteral("ollama"));
    QVERIFY(!loaded->showThinking);
    QCOMPARE(loaded->extra.value(QStringLiteral("future_key")).toArray().size(), 2);

    const QByteArray broken = R"({"active_provider": "ollama",)";
    writeFile(Settings::defaultPath(), broken);
    const auto refused = Settings::modify([](Settings &settings) { settings.showThinking = true; });
    QVERIFY(!refused.ok());
    QVERIFY(refused.error().contains(Settings::defaultPath()));
    QFile file(Settings::defaultPath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), broken); // never replaced silently
}

void TestSettings::damagedFileKeepsItsValidKeysAndSaysWhy()
{
    // issue 14: a hand-edited file with one bad key: that key keeps its default, the others are used, and the
    // message names the file and the key. Nothing is written.
    test::TestEnvironment env;
    const QByteArray edited =
        R"({"active_provider": "ollama", "active_model": "qwen3-coder", "show_thinking": "yes", "tool_history": "full"})";
    writeFile(Settings::defaultPath(), edited);
    const LoadedSettings loaded = Settings::loadOrDefaults();
    QVERIFY2(loaded.problem.contains(Settings::defaultPath()) &&
                 loaded.problem.contains(QStringLiteral("\"show_thinking\"")),
             qPrintable(loaded.problem));
    QCOMPARE(loaded.settings.activeProvider, QStringLiteral("ollama"));
    QCOMPARE(loaded.settings.activeModel, QStringLiteral("qwen3-coder"));
    QCOMPARE(loaded.settings.toolHistory, Settings::ToolHistory::Full);
    QCOMPARE(loaded.settings.showThinking, Settings().showThinking); // the default
    QVERIFY(!Settings::load().ok()); // the strict load still refuses it, so modify() never writes over it
    QVERIFY(!Settings::modify([](Settings &settings) { settings.showThinking = false; }).ok());
    QFile file(Settings::defaultPath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), edited);

    // Not JSON at all (truncated, binary): every default, and the reason.
    for (const QByteArray &broken :
         {QByteArray(R"({"active_provider": "oll)"), QByteArray("\x00\x01\xff PK\x03\x04", 9)}) {
        writeFile(Settings::defaultPath(), broken);
        const LoadedSettings defaults = Settings::loadOrDefaults();
        QVERIFY2(defaults.problem.contains(QStringLiteral("not valid JSON")), qPrintable(defaults.problem));
        QCOMPARE(defaults.settings, Settings());
    }
}

void TestSettings::fileThatIsNotARegularFileIsNamedAndNeverRead_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("reason");
    QTest::newRow("a FIFO") << QStringLiteral("fifo") << QStringLiteral("FIFO");
    QTest::newRow("a link to /dev/zero") << QStringLiteral("zero") << QStringLiteral("device");
    QTest::newRow("a folder") << QStringLiteral("folder") << QStringLiteral("a folder is in its place");
    QTest::newRow("huge") << QStringLiteral("huge") << QStringLiteral("more than the 4 MiB");
}

void TestSettings::fileThatIsNotARegularFileIsNamedAndNeverRead()
{
    // issue 14: a FIFO in place of settings.json hung `run`; /dev/zero would never end.
    QFETCH(QString, kind);
    QFETCH(QString, reason);
    test::TestEnvironment env;
    const QString path = Settings::defaultPath();
    QDir().mkpath(QFileInfo(path).path());
    if (kind == QLatin1String("fifo"))
        QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
    else if (kind == QLatin1String("zero"))
        QVERIFY(QFile::link(QStringLiteral("/dev/zero"), path));
    else if (kind == QLatin1String("folder"))
        QVERIFY(QDir().mkpath(path));
    else
        writeFile(path, "{\"x\": \"" + QByteArray(5 * 1024 * 1024, 'x') + "\"}");
    const LoadedSettings loaded = Settings::loadOrDefaults();
    QVERIFY2(loaded.problem.contains(path) && loaded.problem.contains(reason), qPrintable(loaded.problem));
    QCOMPARE(loaded.settings, Settings());
    const auto strict = Settings::load();
    QVERIFY(!strict.ok());
    QCOMPARE(strict.error(), loaded.problem);
}

QTEST_GUILESS_MAIN(TestSettings)
#include "tst_settings.moc"
