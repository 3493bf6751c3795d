#pragma once

#include "base/result.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QMap>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace keen {

// One entry of "providers" in settings.json (reference 8.1).
struct ProviderSettings
{
    QString baseUrl;
    QMap<QString, QString> headers;
    QStringList models;
    QString apiKeyHelper;
    QString apiKey; // only when the user chose to keep the key in this file instead of the keychain
    // The window of this provider's models, over the top-level context_window and the registry: a local
    // server's is the context size it was started with, which no registry knows.
    std::optional<qint64> contextWindow;
    // context_windows: the window of one model, over contextWindow (a server that runs its models with
    // different context sizes; Settings > Context window sets the chosen model's).
    QMap<QString, qint64> modelContextWindows;
    QJsonObject extra; // keys this version does not know, kept so a save does not drop them

    bool operator==(const ProviderSettings &) const = default;
};

struct LoadedSettings;

// settings.json: provider setup and chat preferences. Window geometry lives in QSettings in the UI, not here.
// Location: $KEEN_HOME when set, else QStandardPaths::AppConfigLocation.
struct Settings
{
    Q_DECLARE_TR_FUNCTIONS(Settings)

public:
    enum class ToolHistory { None, Full }; // reference 5.5 /tool-history, default none
    enum class ColorScheme { System, Light, Dark };
    static constexpr int MaxRecentFolders = 10;

    QMap<QString, ProviderSettings> providers;
    QString activeProvider;
    QString activeModel;
    QString thinkingEffort;
    // /adversary model: the provider and model reviews run on (the reference agent's adversary_provider and
    // adversary_model); both empty: the conversation's.
    QString adversaryProvider;
    QString adversaryModel;
    bool showThinking = true;
    ToolHistory toolHistory = ToolHistory::None;
    std::optional<qint64> contextWindow; // overrides the registry's window
    QStringList recentFolders;           // the window's File > Open Recent, newest first
    ColorScheme colorScheme = ColorScheme::System;
    // Issue 16: a manual compaction's summary waits for the person's Accept (editable) before it applies.
    bool reviewCompaction = false;
    // The pins' share of the input budget in percent, 1 to 100 (issue 16); absent: 10.
    std::optional<int> pinBudgetPercent;
    // The conversation's text size in percent of the desktop's font (View > Zoom), 50 to 200.
    static constexpr int MinZoomPercent = 50;
    static constexpr int MaxZoomPercent = 200;
    int zoomPercent = 100;
    QJsonObject extra; // unknown top-level keys, kept on save

    bool operator==(const Settings &) const = default;

    // providers.<id>.context_windows.<model>, else providers.<id>.context_window, else context_window;
    // empty: the registry's window.
    std::optional<qint64> contextWindowFor(const QString &providerId, const QString &model = {}) const;

    static QString configDirectory();
    static QString defaultPath();

    // The most this app reads of settings.json.
    static constexpr qint64 MaxFileBytes = 4 * 1024 * 1024;

    // A missing file gives the defaults. A file that cannot be read (not a regular file, unreadable, larger
    // than MaxFileBytes), bad JSON or a wrong type is an error naming the file and the key; values are never
    // quoted, since the file may hold keys.
    static Result<Settings> load(const QString &path = defaultPath());
    static Result<Settings> fromJson(const QByteArray &json, const QString &path);
    // What the app runs with: every valid key of the file and the defaults for the rest, with what was wrong
    // (the same message as load()'s error) beside it. Nothing is written. The changes SettingsWriter still
    // has queued for the file are applied (unless the file has a problem: they will fail to be written).
    static LoadedSettings loadOrDefaults(const QString &path = defaultPath());
    QByteArray toJson() const;
    // Atomic (QSaveFile), mode 0600, folder 0700. Blocking, and after every change SettingsWriter has queued.
    Result<void> save(const QString &path = defaultPath()) const;
    // Loads, changes and saves in one step so other keys survive. A broken file is reported, never replaced.
    // Blocking: the window changes the file through SettingsWriter.
    static Result<Settings> modify(const std::function<void(Settings &)> &change,
                                   const QString &path = defaultPath());
    // Puts a folder first in recentFolders (no duplicates, at most MaxRecentFolders).
    void addRecentFolder(const QString &absolutePath);

    ProviderSettings provider(const QString &providerId) const { return providers.value(providerId); }
    static QString toolHistoryName(ToolHistory mode);
    static QString colorSchemeName(ColorScheme scheme);

private:
    // The file as it is on disk, without SettingsWriter's queued changes.
    static LoadedSettings readFile(const QString &path);
    // Never fails: a bad key keeps its default and the first problem is put in problem.
    static Settings parse(const QByteArray &json, const QString &path, QString *problem);
};

struct LoadedSettings
{
    Settings settings;
    QString problem; // empty when the file was fine (or missing)
};

} // namespace keen
