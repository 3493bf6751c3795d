#pragma once

#include "session/sessionindex.h"
#include "session/sessionstore.h"

#include <QAbstractItemModel>
#include <QDate>
#include <QFileSystemWatcher>
#include <QPointer>
#include <QTimer>

#include <optional>

namespace keen {

// The session browser's tree: groups Today / Yesterday / Last 7 days / Older (only the non-empty ones, in
// that order), each with its sessions newest first. In search mode the sessions are the matches, with their
// snippet.
//
// The model loads off the GUI thread (SessionIndex on a QtConcurrent worker, SessionStore::list when the
// index cannot be used), applies results as minimal row inserts, moves and removes so selections survive, and
// follows the disk: a QFileSystemWatcher on the sessions root, its namespace folders and the listed
// transcripts triggers a debounced refresh.
class SessionListModel final : public QAbstractItemModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SessionListModel)

public:
    enum Role {
        SessionIdRole = Qt::UserRole + 1,
        TitleRole,
        PreviewRole,    // the snippet of the match when searching, else the last user message
        HighlightsRole, // QList<QPoint>(start, length) of matches inside PreviewRole (search only)
        UpdatedAtRole,
        TimeTextRole, // "14:05", "Mon 09:12" or a date, by group
        PathRole,
        DirectoryRole,
        WorkspaceRole,
        MatchSeqRole, // seq of the matching event (search only), else 0
        IsGroupRole,
        GroupRole,
    };
    enum class Group { Today, Yesterday, LastSevenDays, Older };
    Q_ENUM(Group)

    explicit SessionListModel(QObject *parent = nullptr);
    ~SessionListModel() override;

    // Where to read from. Nothing loads until a root is set.
    void setSessionsRoot(const QString &root);
    QString sessionsRoot() const { return m_root; }
    // Empty: every workspace.
    void setWorkspaceFilter(const QString &workspace);
    QString workspaceFilter() const { return m_workspace; }
    // Non-empty: search mode (full-text search through the index).
    void setSearchQuery(const QString &query);
    QString searchQuery() const { return m_query; }
    bool isSearching() const { return !m_query.trimmed().isEmpty(); }

    // Starts an asynchronous reload; concurrent requests are coalesced into one more run.
    void refresh();
    bool isLoading() const { return m_running; }
    QString lastError() const { return m_lastError; }
    int sessionCount() const;
    // A search: how many sessions match in all; more than sessionCount() when only the newest are listed.
    int matchingSessionCount() const { return m_matchingSessions; }

    // Watch the disk and refresh (debounced) when sessions change. On by default.
    void setLiveUpdates(bool enabled);
    void setDebounceInterval(int milliseconds);

    // The day grouping is relative to; default: today, read at each apply. For tests.
    void setReferenceDate(const QDate &date);
    static Group groupFor(const QDate &date, const QDate &today);
    static QString groupTitle(Group group);

    // Apply results directly (what a refresh does on the GUI thread). Public for tests and callers with data.
    void setSessions(const QList<SessionInfo> &sessions);
    void setSearchResults(const QList<SessionSearchHit> &hits);

    std::optional<SessionInfo> sessionAt(const QModelIndex &index) const;
    QModelIndex indexForSession(const QString &sessionId) const;
    // The first session row in display order, or an invalid index.
    QModelIndex firstSession() const;

    QModelIndex index(int row, int column, const QModelIndex &parent = QModelIndex()) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QHash<int, QByteArray> roleNames() const override;

Q_SIGNALS:
    void loadingChanged(bool loading);
    // After each refresh was applied; error is empty on success.
    void refreshed(const QString &error);
    // The user edited a title in place; the owner persists it (SessionStore::rename) off the GUI thread.
    void titleEdited(const QString &sessionId, const QString &title);

private:
    struct Entry
    {
        SessionInfo info;
        QString preview;
        QList<QPoint> highlights;
        quint64 matchSeq = 0;
    };
    struct GroupRows
    {
        Group group;
        QList<Entry> entries;
    };
    struct LoadResult;

    void apply(const QList<Entry> &entries);
    void applyGroup(int groupRow, const QList<Entry> &entries);
    void startLoad();
    void finishLoad(const LoadResult &result);
    void syncWatches(const QStringList &paths);
    QString timeText(const QDateTime &updatedAt, Group group) const;
    QDate today() const;

    QString m_root;
    QString m_workspace;
    QString m_query;
    QString m_lastError;
    int m_matchingSessions = 0;
    QList<GroupRows> m_groups;
    std::optional<QDate> m_referenceDate;
    quint64 m_parameters = 0; // bumped when root, workspace or query change
    bool m_running = false;
    bool m_pending = false;
    bool m_liveUpdates = true;
    QFileSystemWatcher m_watcher;
    QTimer m_debounce;
};

} // namespace keen
