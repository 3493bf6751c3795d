#include "config/settings.h"

#include "config/settingswriter.h"

#include "base/appfolders.h"
#include "base/privatefolder.h"
#include "base/regularfile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

#include <sys/stat.h>

namespace keen {

namespace {

const QString kProviders = QStringLiteral("providers");
const QString kActiveProvider = QStringLiteral("active_provider");
const QString kActiveModel = QStringLiteral("active_model");
const QString kThinkingEffort = QStringLiteral("thinking_effort");
const QString kAdversaryProvider = QStringLiteral("adversary_provider");
const QString kAdversaryModel = QStringLiteral("adversary_model");
const QString kShowThinking = QStringLiteral("show_thinking");
const QString kCompactionReview = QStringLiteral("compaction_review");
const QString kToolHistory = QStringLiteral("tool_history");
const QString kContextWindow = QStringLiteral("context_window");
const QString kContextWindows = QStringLiteral("context_windows");
const QString kPinBudgetPercent = QStringLiteral("pin_budget_percent");
const QString kRecentFolders = QStringLiteral("recent_folders");
const QString kZoomPercent = QStringLiteral("zoom_percent");
const QString kColorScheme = QStringLiteral("color_scheme");
const QString kBaseUrl = QStringLiteral("base_url");
const QString kHeaders = QStringLiteral("headers");
const QString kModels = QStringLiteral("models");
const QString kApiKeyHelper = QStringLiteral("api_key_helper");
const QString kApiKey = QStringLiteral("api_key");

// Collects the first type error with the key path that caused it.
class Reader
{
public:
    explicit Reader(QString path)
        : m_path(std::move(path))
    {}

    bool failed() const { return !m_error.isEmpty(); }
    QString error() const { return m_error; }

    void fail(const QString &key, const QString &expected)
    {
        if (m_error.isEmpty())
            m_error =
                Settings::tr("The settings file %1 is invalid: \"%2\" must be %3. Fix or remove that entry.")
                    .arg(m_path, key, expected);
    }

    QString string(const QJsonObject &object, const QString &key, const QString &keyPath)
    {
        const QJsonValue value = object.value(key);
        if (value.isUndefined() || value.isNull())
            return {};
        if (!value.isString())
            fail(keyPath, Settings::tr("a string"));
        return value.toString();
    }

private:
    QString m_path;
    QString m_error;
};

// A window of tokens: a whole number from 1 to 2^53, range-checked before the cast (converting a double
// outside qint64, 1e300, is undefined behaviour).
std::optional<qint64> readContextWindow(Reader &reader, const QJsonValue &value, const QString &keyPath)
{
    const double window = value.toDouble();
    if (value.isDouble() && window >= 1 && window <= double(qint64(1) << 53) &&
        window == double(qint64(window)))
        return qint64(window);
    if (!value.isUndefined() && !value.isNull())
        reader.fail(keyPath, Settings::tr("a positive whole number of tokens"));
    return std::nullopt;
}

ProviderSettings readProvider(Reader &reader, const QString &id, const QJsonObject &object)
{
    const QString prefix = kProviders + QLatin1Char('.') + id + QLatin1Char('.');
    ProviderSettings provider;
    provider.baseUrl = reader.string(object, kBaseUrl, prefix + kBaseUrl);
    provider.apiKeyHelper = reader.string(object, kApiKeyHelper, prefix + kApiKeyHelper);
    provider.apiKey = reader.string(object, kApiKey, prefix + kApiKey);
    provider.contextWindow = readContextWindow(reader, object.value(kContextWindow), prefix + kContextWindow);
    const QJsonValue windows = object.value(kContextWindows);
    if (windows.isObject()) {
        const QJsonObject byModel = windows.toObject();
        for (auto it = byModel.begin(); it != byModel.end(); ++it) {
            if (const auto window = readContextWindow(reader, it.value(),
                                                      prefix + kContextWindows + QLatin1Char('.') + it.key()))
                provider.modelContextWindows.insert(it.key(), *window);
        }
    } else if (!windows.isUndefined() && !windows.isNull()) {
        reader.fail(prefix + kContextWindows, Settings::tr("an object of model ids to numbers of tokens"));
    }

    const QJsonValue headers = object.value(kHeaders);
    if (headers.isObject()) {
        const QJsonObject headerObject = headers.toObject();
        for (auto it = headerObject.begin(); it != headerObject.end(); ++it) {
            if (!it.value().isString())
                reader.fail(prefix + kHeaders + QLatin1Char('.') + it.key(), Settings::tr("a string"));
            provider.headers.insert(it.key(), it.value().toString());
        }
    } else if (!headers.isUndefined() && !headers.isNull()) {
        reader.fail(prefix + kHeaders, Settings::tr("an object of header names to values"));
    }

    const QJsonValue models = object.value(kModels);
    if (models.isArray()) {
        const QJsonArray modelArray = models.toArray();
        for (const QJsonValue &model : modelArray) {
            if (!model.isString())
                reader.fail(prefix + kModels, Settings::tr("a list of model ids"));
            else
                provider.models.append(model.toString());
        }
    } else if (!models.isUndefined() && !models.isNull()) {
        reader.fail(prefix + kModels, Settings::tr("a list of model ids"));
    }

    static const QStringList known{kBaseUrl, kHeaders,       kModels,        kApiKeyHelper,
                                   kApiKey,  kContextWindow, kContextWindows};
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (!known.contains(it.key()))
            provider.extra.insert(it.key(), it.value());
    }
    return provider;
}

Result<void> ensurePrivateFolder(const QString &path)
{
    Result<void> made = PrivateFolder::ensure(path);
    if (!made)
        return Result<void>::failure(Settings::tr("Cannot create the settings folder %1").arg(made.error()));
    return {};
}

} // namespace

std::optional<qint64> Settings::contextWindowFor(const QString &providerId, const QString &model) const
{
    if (const auto provider = providers.constFind(providerId); provider != providers.cend()) {
        if (const auto window = provider->modelContextWindows.constFind(model);
            !model.isEmpty() && window != provider->modelContextWindows.cend())
            return *window;
        if (provider->contextWindow)
            return provider->contextWindow;
    }
    return contextWindow;
}

QString Settings::configDirectory()
{
    return AppFolders::config();
}

QString Settings::defaultPath()
{
    return QDir(configDirectory()).filePath(QStringLiteral("settings.json"));
}

QString Settings::toolHistoryName(ToolHistory mode)
{
    return mode == ToolHistory::Full ? QStringLiteral("full") : QStringLiteral("none");
}

QString Settings::colorSchemeName(ColorScheme scheme)
{
    switch (scheme) {
    case ColorScheme::Light:
        return QStringLiteral("light");
    case ColorScheme::Dark:
        return QStringLiteral("dark");
    case ColorScheme::System:
        break;
    }
    return QStringLiteral("system");
}

void Settings::addRecentFolder(const QString &absolutePath)
{
    recentFolders.removeAll(absolutePath);
    recentFolders.prepend(absolutePath);
    while (recentFolders.size() > MaxRecentFolders)
        recentFolders.removeLast();
}

Result<Settings> Settings::modify(const std::function<void(Settings &)> &change, const QString &path)
{
    const LoadedSettings loaded = readFile(path); // as on disk: the changes queued after this one come later
    if (!loaded.problem.isEmpty())
        return Result<Settings>::failure(loaded.problem);
    Settings settings = loaded.settings;
    change(settings);
    const Result<void> saved = settings.save(path);
    if (!saved)
        return Result<Settings>::failure(saved.error());
    return settings;
}

Result<Settings> Settings::load(const QString &path)
{
    const LoadedSettings loaded = loadOrDefaults(path);
    if (!loaded.problem.isEmpty())
        return Result<Settings>::failure(loaded.problem);
    return loaded.settings;
}

LoadedSettings Settings::loadOrDefaults(const QString &path)
{
    return SettingsWriter::readWithQueued(path, [&path] { return readFile(path); });
}

LoadedSettings Settings::readFile(const QString &path)
{
    // Only a regular file of a sane size: a FIFO would block, /dev/zero would never end.
    const RegularFile::Read read = RegularFile::read(path, MaxFileBytes);
    if (read.problem == RegularFile::Problem::Missing)
        return {};
    if (!read.ok())
        return {Settings{}, Settings::tr("Cannot read the settings file %1: %2. The defaults are used; fix "
                                         "or remove the file.")
                                .arg(path, read.reason)};
    LoadedSettings loaded;
    loaded.settings = parse(read.bytes, path, &loaded.problem);
    return loaded;
}

Result<Settings> Settings::fromJson(const QByteArray &json, const QString &path)
{
    QString problem;
    Settings settings = parse(json, path, &problem);
    if (!problem.isEmpty())
        return Result<Settings>::failure(problem);
    return settings;
}

Settings Settings::parse(const QByteArray &json, const QString &path, QString *problem)
{
    if (json.trimmed().isEmpty())
        return Settings{};
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        *problem = Settings::tr("The settings file %1 is not valid JSON: %2 (at byte %3). Fix the file "
                                "or remove it to start from the defaults.")
                       .arg(path, parseError.errorString())
                       .arg(parseError.offset);
        return Settings{};
    }
    if (!document.isObject()) {
        *problem = Settings::tr("The settings file %1 is invalid: it must hold a JSON object. "
                                "Fix the file or remove it to start "
                                "from the defaults.")
                       .arg(path);
        return Settings{};
    }

    const QJsonObject root = document.object();
    Reader reader(path);
    Settings settings;
    settings.activeProvider = reader.string(root, kActiveProvider, kActiveProvider);
    settings.activeModel = reader.string(root, kActiveModel, kActiveModel);
    settings.thinkingEffort = reader.string(root, kThinkingEffort, kThinkingEffort);
    settings.adversaryProvider = reader.string(root, kAdversaryProvider, kAdversaryProvider);
    settings.adversaryModel = reader.string(root, kAdversaryModel, kAdversaryModel);

    const QJsonValue showThinking = root.value(kShowThinking);
    if (showThinking.isBool())
        settings.showThinking = showThinking.toBool();
    else if (!showThinking.isUndefined() && !showThinking.isNull())
        reader.fail(kShowThinking, Settings::tr("true or false"));

    const QJsonValue review = root.value(kCompactionReview);
    if (review.isBool())
        settings.reviewCompaction = review.toBool();
    else if (!review.isUndefined() && !review.isNull())
        reader.fail(kCompactionReview, Settings::tr("true or false"));

    const QJsonValue toolHistory = root.value(kToolHistory);
    if (toolHistory.isString() && toolHistory.toString() == QLatin1String("full"))
        settings.toolHistory = ToolHistory::Full;
    else if (toolHistory.isString() && toolHistory.toString() == QLatin1String("none"))
        settings.toolHistory = ToolHistory::None;
    else if (!toolHistory.isUndefined() && !toolHistory.isNull())
        reader.fail(kToolHistory, Settings::tr("\"none\" or \"full\""));

    settings.contextWindow = readContextWindow(reader, root.value(kContextWindow), kContextWindow);

    const QJsonValue pinBudget = root.value(kPinBudgetPercent);
    const double percent = pinBudget.toDouble();
    if (pinBudget.isDouble() && percent >= 1 && percent <= 100 && percent == double(int(percent)))
        settings.pinBudgetPercent = int(percent);
    else if (!pinBudget.isUndefined() && !pinBudget.isNull())
        reader.fail(kPinBudgetPercent, Settings::tr("a whole number of percent from 1 to 100"));

    const QJsonValue zoom = root.value(kZoomPercent);
    const double zoomPercent = zoom.toDouble();
    if (zoom.isDouble() && zoomPercent >= MinZoomPercent && zoomPercent <= MaxZoomPercent &&
        zoomPercent == double(int(zoomPercent)))
        settings.zoomPercent = int(zoomPercent);
    else if (!zoom.isUndefined() && !zoom.isNull())
        reader.fail(
            kZoomPercent,
            Settings::tr("a whole number of percent from %1 to %2").arg(MinZoomPercent).arg(MaxZoomPercent));

    const QJsonValue recent = root.value(kRecentFolders);
    if (recent.isArray()) {
        const QJsonArray folders = recent.toArray();
        for (const QJsonValue &folder : folders) {
            if (!folder.isString())
                reader.fail(kRecentFolders, tr("a list of folder paths"));
            else if (settings.recentFolders.size() < MaxRecentFolders)
                settings.recentFolders.append(folder.toString());
        }
    } else if (!recent.isUndefined() && !recent.isNull()) {
        reader.fail(kRecentFolders, tr("a list of folder paths"));
    }

    const QJsonValue scheme = root.value(kColorScheme);
    if (scheme.isString() && scheme.toString() == QLatin1String("light"))
        settings.colorScheme = ColorScheme::Light;
    else if (scheme.isString() && scheme.toString() == QLatin1String("dark"))
        settings.colorScheme = ColorScheme::Dark;
    else if (scheme.isString() && scheme.toString() == QLatin1String("system"))
        settings.colorScheme = ColorScheme::System;
    else if (!scheme.isUndefined() && !scheme.isNull())
        reader.fail(kColorScheme, tr("\"system\", \"light\" or \"dark\""));

    const QJsonValue providers = root.value(kProviders);
    if (providers.isObject()) {
        const QJsonObject providerObject = providers.toObject();
        for (auto it = providerObject.begin(); it != providerObject.end(); ++it) {
            if (!it.value().isObject()) {
                reader.fail(kProviders + QLatin1Char('.') + it.key(), Settings::tr("an object"));
                continue;
            }
            settings.providers.insert(it.key(), readProvider(reader, it.key(), it.value().toObject()));
        }
    } else if (!providers.isUndefined() && !providers.isNull()) {
        reader.fail(kProviders, Settings::tr("an object of provider ids to provider settings"));
    }

    // A key of the wrong type keeps its default; the others are used.
    if (reader.failed())
        *problem = reader.error();

    static const QStringList known{kProviders,         kActiveProvider,   kActiveModel,   kThinkingEffort,
                                   kShowThinking,      kToolHistory,      kContextWindow, kRecentFolders,
                                   kColorScheme,       kPinBudgetPercent, kZoomPercent,   kCompactionReview,
                                   kAdversaryProvider, kAdversaryModel};
    for (auto it = root.begin(); it != root.end(); ++it) {
        if (!known.contains(it.key()))
            settings.extra.insert(it.key(), it.value());
    }
    return settings;
}

QByteArray Settings::toJson() const
{
    QJsonObject root = extra;
    QJsonObject providerObject;
    for (auto it = providers.cbegin(); it != providers.cend(); ++it) {
        const ProviderSettings &provider = it.value();
        QJsonObject object = provider.extra;
        if (!provider.baseUrl.isEmpty())
            object.insert(kBaseUrl, provider.baseUrl);
        if (!provider.headers.isEmpty()) {
            QJsonObject headers;
            for (auto header = provider.headers.cbegin(); header != provider.headers.cend(); ++header)
                headers.insert(header.key(), header.value());
            object.insert(kHeaders, headers);
        }
        object.insert(kModels, QJsonArray::fromStringList(provider.models));
        if (!provider.apiKeyHelper.isEmpty())
            object.insert(kApiKeyHelper, provider.apiKeyHelper);
        if (!provider.apiKey.isEmpty())
            object.insert(kApiKey, provider.apiKey);
        if (provider.contextWindow)
            object.insert(kContextWindow, *provider.contextWindow);
        if (!provider.modelContextWindows.isEmpty()) {
            QJsonObject windows;
            for (auto window = provider.modelContextWindows.cbegin();
                 window != provider.modelContextWindows.cend(); ++window)
                windows.insert(window.key(), window.value());
            object.insert(kContextWindows, windows);
        }
        providerObject.insert(it.key(), object);
    }
    root.insert(kProviders, providerObject);
    root.insert(kActiveProvider, activeProvider);
    root.insert(kActiveModel, activeModel);
    root.insert(kThinkingEffort, thinkingEffort);
    if (!adversaryProvider.isEmpty()) {
        root.insert(kAdversaryProvider, adversaryProvider);
        root.insert(kAdversaryModel, adversaryModel);
    }
    root.insert(kShowThinking, showThinking);
    root.insert(kToolHistory, toolHistoryName(toolHistory));
    if (contextWindow)
        root.insert(kContextWindow, *contextWindow);
    if (pinBudgetPercent)
        root.insert(kPinBudgetPercent, *pinBudgetPercent);
    if (!recentFolders.isEmpty())
        root.insert(kRecentFolders, QJsonArray::fromStringList(recentFolders));
    if (zoomPercent != 100)
        root.insert(kZoomPercent, zoomPercent);
    if (colorScheme != ColorScheme::System)
        root.insert(kColorScheme, colorSchemeName(colorScheme));
    if (reviewCompaction)
        root.insert(kCompactionReview, true);
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

Result<void> Settings::save(const QString &path) const
{
    SettingsWriter::waitForWrites(); // after the changes queued before it, or one of them would undo this
                                     // save
    Result<void> folder = ensurePrivateFolder(QFileInfo(path).absolutePath());
    if (!folder)
        return folder;
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Result<void>::failure(
            Settings::tr("Cannot write the settings file %1: %2").arg(path, file.errorString()));
    // Before any byte is written: the file may hold an API key.
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(toJson());
    if (!file.commit())
        return Result<void>::failure(
            Settings::tr("Cannot write the settings file %1: %2").arg(path, file.errorString()));
    return {};
}

} // namespace keen
