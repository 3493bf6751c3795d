#include "sessions/sessionlistmodel.h"

#include "displaypath.h"

#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QLocale>
#include <QPoint>
#include <QRegularExpression>
#include <QSet>
#include <QTextDocument> // Qt::convertFromPlainText: a tooltip of conversation text is never rich text
#include <QtConcurrent>

namespace keen {

namespace {

constexpr int kMaxWatchedTranscripts = 256;

// Group rows carry no internal id; session rows carry their group's enum value + 1 (stable across row moves).
constexpr quintptr kGroupRowId = 0;

quintptr idForGroup(SessionListModel::Group group)
{
    return quintptr(group) + 1;
}

} // namespace

struct SessionListModel::LoadResult
{
    quint64 parameters = 0;
    bool search = false;
    QList<SessionInfo> sessions;
    QList<SessionSearchHit> hits;
    int matchingSessions = 0; // a search: how many match in all (hits holds the newest of them)
    QStringList watchPaths;
    QString error;
};

SessionListModel::SessionListModel(QObject *parent)
    : QAbstractItemModel(parent)
{
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(400);
    connect(&m_debounce, &QTimer::timeout, this, &SessionListModel::refresh);
    connect(&m_watcher, &QFileSystemWatcher::directoryChanged, this, [this] {
        if (m_liveUpdates)
            m_debounce.start();
    });
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, this, [this] {
        if (m_liveUpdates)
            m_debounce.start();
    });
}

SessionListModel::~SessionListModel() = default;

void SessionListModel::setSessionsRoot(const QString &root)
{
    if (root == m_root)
        return;
    m_root = root;
    ++m_parameters;
    refresh();
}

void SessionListModel::setWorkspaceFilter(const QString &workspace)
{
    if (workspace == m_workspace)
        return;
    m_workspace = workspace;
    ++m_parameters;
    refresh();
}

void SessionListModel::setSearchQuery(const QString &query)
{
    if (query == m_query)
        return;
    m_query = query;
    ++m_parameters;
    refresh();
}

void SessionListModel::setLiveUpdates(bool enabled)
{
    m_liveUpdates = enabled;
    if (!enabled) {
        m_debounce.stop();
        syncWatches({});
    }
}

void SessionListModel::setDebounceInterval(int milliseconds)
{
    m_debounce.setInterval(milliseconds);
}

void SessionListModel::setReferenceDate(const QDate &date)
{
    m_referenceDate = date;
}

QDate SessionListModel::today() const
{
    return m_referenceDate.value_or(QDate::currentDate());
}

SessionListModel::Group SessionListModel::groupFor(const QDate &date, const QDate &today)
{
    const qint64 days = date.daysTo(today);
    if (days <= 0)
        return Group::Today; // also a clock that ran ahead
    if (days == 1)
        return Group::Yesterday;
    if (days <= 7)
        return Group::LastSevenDays;
    return Group::Older;
}

QString SessionListModel::groupTitle(Group group)
{
    switch (group) {
    case Group::Today:
        return tr("Today");
    case Group::Yesterday:
        return tr("Yesterday");
    case Group::LastSevenDays:
        return tr("Last 7 days");
    case Group::Older:
        return tr("Older");
    }
    return {};
}

int SessionListModel::sessionCount() const
{
    int count = 0;
    for (const GroupRows &group : m_groups)
        count += int(group.entries.size());
    return count;
}

void SessionListModel::refresh()
{
    m_debounce.stop();
    if (m_root.isEmpty())
        return;
    if (m_running) {
        m_pending = true;
        return;
    }
    startLoad();
}

void SessionListModel::startLoad()
{
    m_running = true;
    Q_EMIT loadingChanged(true);
    const QString root = m_root;
    const QString workspace = m_workspace;
    const QString query = m_query.trimmed();
    const quint64 parameters = m_parameters;
    const bool watch = m_liveUpdates;

    QFuture<LoadResult> future = QtConcurrent::run([root, workspace, query, parameters, watch] {
        LoadResult result;
        result.parameters = parameters;
        result.search = !query.isEmpty();
        SessionIndex index(root);
        if (result.search) {
            auto hits = index.search(query, workspace, SessionIndex::kSearchLimit, &result.matchingSessions);
            if (hits)
                result.hits = std::move(hits).value();
            else
                result.error = hits.error();
        } else {
            auto sessions = index.sessions(workspace);
            if (sessions) {
                result.sessions = std::move(sessions).value();
            } else {
                // The index is only a cache: list straight from the transcripts when it is unusable.
                result.sessions = SessionStore(root).list(workspace);
            }
        }
        if (watch) {
            // The root (new namespaces), the namespace folders (new or removed sessions, atomic batch
            // renames) and the most recent transcripts (appends). Before the root exists, its nearest
            // existing parent.
            QString existing = QDir::cleanPath(root);
            while (!QFileInfo(existing).isDir()) {
                const QString up = QFileInfo(existing).absolutePath();
                if (up == existing)
                    break;
                existing = up;
            }
            if (QFileInfo(existing).isDir())
                result.watchPaths.append(existing);
            if (QFileInfo(root).isDir()) {
                const QDir rootDir(root);
                const QStringList namespaces = rootDir.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
                const QString only = workspace.isEmpty() ? QString()
                                                         : SessionStore::namespaceFor(QDir::cleanPath(
                                                               QFileInfo(workspace).absoluteFilePath()));
                for (const QString &name : namespaces) {
                    if (only.isEmpty() || name == only)
                        result.watchPaths.append(rootDir.filePath(name));
                }
            }
            const QList<SessionInfo> &listed = result.search ? QList<SessionInfo>() : result.sessions;
            for (qsizetype i = 0; i < listed.size() && i < kMaxWatchedTranscripts; ++i) {
                result.watchPaths.append(listed.at(i).path);
                result.watchPaths.append(listed.at(i).directory);
            }
            for (qsizetype i = 0; i < result.hits.size() && i < kMaxWatchedTranscripts; ++i) {
                result.watchPaths.append(result.hits.at(i).session.path);
                result.watchPaths.append(result.hits.at(i).session.directory);
            }
        }
        return result;
    });
    // A watcher, not QFuture::then: then() runs the continuation synchronously when the task already
    // finished, and refreshed() must never be emitted from inside a setter.
    auto *watcher = new QFutureWatcher<LoadResult>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
        watcher->deleteLater();
        finishLoad(watcher->result());
    });
    watcher->setFuture(future);
}

void SessionListModel::finishLoad(const LoadResult &result)
{
    m_running = false;
    // Results for an older root, workspace or query are stale; a newer run is already pending.
    if (result.parameters == m_parameters) {
        m_lastError = result.error;
        m_matchingSessions = result.search ? std::max(result.matchingSessions, int(result.hits.size())) : 0;
        if (result.search)
            setSearchResults(result.hits);
        else
            setSessions(result.sessions);
        if (m_liveUpdates)
            syncWatches(result.watchPaths);
    } else {
        m_pending = true;
    }
    if (m_pending) {
        m_pending = false;
        startLoad();
        return;
    }
    Q_EMIT loadingChanged(false);
    Q_EMIT refreshed(m_lastError);
}

void SessionListModel::syncWatches(const QStringList &paths)
{
    const QSet<QString> wanted(paths.cbegin(), paths.cend());
    QStringList current = m_watcher.files() + m_watcher.directories();
    QStringList stale;
    for (const QString &path : std::as_const(current)) {
        if (!wanted.contains(path))
            stale.append(path);
    }
    if (!stale.isEmpty())
        m_watcher.removePaths(stale);
    const QSet<QString> have(current.cbegin(), current.cend());
    QStringList added;
    for (const QString &path : wanted) {
        if (!have.contains(path))
            added.append(path);
    }
    if (!added.isEmpty())
        m_watcher.addPaths(added);
}

void SessionListModel::setSessions(const QList<SessionInfo> &sessions)
{
    QList<Entry> entries;
    entries.reserve(sessions.size());
    for (const SessionInfo &info : sessions) {
        // A one-prompt session would read its title twice: its folder says more.
        const QString preview = info.previewRepeatsTitle() && !info.workspace.isEmpty()
                                    ? displayPath(info.workspace)
                                    : info.lastUserMessage;
        entries.append(Entry{info, preview, {}, 0});
    }
    apply(entries);
}

void SessionListModel::setSearchResults(const QList<SessionSearchHit> &hits)
{
    QList<Entry> entries;
    entries.reserve(hits.size());
    for (const SessionSearchHit &hit : hits) {
        QList<QPoint> highlights;
        for (const auto &[start, length] : hit.highlights)
            highlights.append(QPoint(start, length));
        entries.append(Entry{hit.session, hit.snippet, highlights, hit.seq});
    }
    apply(entries);
}

void SessionListModel::apply(const QList<Entry> &entries)
{
    const QDate reference = today();
    QList<GroupRows> wanted;
    for (const Entry &entry : entries) {
        const Group group = groupFor(entry.info.updatedAt.toLocalTime().date(), reference);
        auto it = std::find_if(wanted.begin(), wanted.end(),
                               [group](const GroupRows &g) { return g.group == group; });
        if (it == wanted.end()) {
            wanted.append(GroupRows{group, {}});
            it = wanted.end() - 1;
        }
        it->entries.append(entry);
    }
    std::stable_sort(wanted.begin(), wanted.end(),
                     [](const GroupRows &a, const GroupRows &b) { return a.group < b.group; });

    // Groups that are gone.
    for (int row = int(m_groups.size()) - 1; row >= 0; --row) {
        const Group group = m_groups.at(row).group;
        if (std::none_of(wanted.cbegin(), wanted.cend(),
                         [group](const GroupRows &g) { return g.group == group; })) {
            beginRemoveRows(QModelIndex(), row, row);
            m_groups.removeAt(row);
            endRemoveRows();
        }
    }
    // Groups that stay are updated in place; new ones are inserted at their position.
    for (int row = 0; row < wanted.size(); ++row) {
        const GroupRows &target = wanted.at(row);
        if (row < m_groups.size() && m_groups.at(row).group == target.group) {
            applyGroup(row, target.entries);
            continue;
        }
        beginInsertRows(QModelIndex(), row, row);
        m_groups.insert(row, target);
        endInsertRows();
    }
}

// Brings one group's rows to entries with removes, moves and inserts, so unchanged rows keep their identity.
void SessionListModel::applyGroup(int groupRow, const QList<Entry> &entries)
{
    const QModelIndex parent = index(groupRow, 0);
    QSet<QString> wantedIds;
    for (const Entry &entry : entries)
        wantedIds.insert(entry.info.id);
    {
        QList<Entry> &current = m_groups[groupRow].entries;
        for (int row = int(current.size()) - 1; row >= 0; --row) {
            if (!wantedIds.contains(current.at(row).info.id)) {
                beginRemoveRows(parent, row, row);
                current.removeAt(row);
                endRemoveRows();
            }
        }
    }
    for (int row = 0; row < entries.size(); ++row) {
        const Entry &target = entries.at(row);
        QList<Entry> &current = m_groups[groupRow].entries;
        if (row < current.size() && current.at(row).info.id == target.info.id) {
            current[row] = target;
            const QModelIndex changed = index(row, 0, parent);
            Q_EMIT dataChanged(changed, changed);
            continue;
        }
        int from = -1;
        for (int j = row + 1; j < current.size(); ++j) {
            if (current.at(j).info.id == target.info.id) {
                from = j;
                break;
            }
        }
        if (from >= 0) {
            beginMoveRows(parent, from, from, parent, row);
            current.move(from, row);
            endMoveRows();
            m_groups[groupRow].entries[row] = target;
            const QModelIndex changed = index(row, 0, parent);
            Q_EMIT dataChanged(changed, changed);
        } else {
            beginInsertRows(parent, row, row);
            current.insert(row, target);
            endInsertRows();
        }
    }
}

std::optional<SessionInfo> SessionListModel::sessionAt(const QModelIndex &index) const
{
    if (!index.isValid() || index.internalId() == kGroupRowId)
        return std::nullopt;
    const QModelIndex group = parent(index);
    if (!group.isValid())
        return std::nullopt;
    return m_groups.at(group.row()).entries.at(index.row()).info;
}

QModelIndex SessionListModel::indexForSession(const QString &sessionId) const
{
    for (int groupRow = 0; groupRow < m_groups.size(); ++groupRow) {
        const QList<Entry> &entries = m_groups.at(groupRow).entries;
        for (int row = 0; row < entries.size(); ++row) {
            if (entries.at(row).info.id == sessionId)
                return index(row, 0, index(groupRow, 0));
        }
    }
    return {};
}

QModelIndex SessionListModel::firstSession() const
{
    if (m_groups.isEmpty() || m_groups.first().entries.isEmpty())
        return {};
    return index(0, 0, index(0, 0));
}

QModelIndex SessionListModel::index(int row, int column, const QModelIndex &parent) const
{
    if (column != 0 || row < 0)
        return {};
    if (!parent.isValid())
        return row < m_groups.size() ? createIndex(row, 0, kGroupRowId) : QModelIndex();
    if (parent.internalId() != kGroupRowId || parent.row() >= m_groups.size())
        return {};
    const GroupRows &group = m_groups.at(parent.row());
    return row < group.entries.size() ? createIndex(row, 0, idForGroup(group.group)) : QModelIndex();
}

QModelIndex SessionListModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == kGroupRowId)
        return {};
    for (int row = 0; row < m_groups.size(); ++row) {
        if (idForGroup(m_groups.at(row).group) == child.internalId())
            return createIndex(row, 0, kGroupRowId);
    }
    return {};
}

int SessionListModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_groups.size());
    if (parent.column() != 0 || parent.internalId() != kGroupRowId || parent.row() >= m_groups.size())
        return 0;
    return int(m_groups.at(parent.row()).entries.size());
}

int SessionListModel::columnCount(const QModelIndex &) const
{
    return 1;
}

QString SessionListModel::timeText(const QDateTime &updatedAt, Group group) const
{
    const QDateTime local = updatedAt.toLocalTime();
    const QLocale locale;
    // The locale's short time without seconds (some locales, C among them, include them).
    QString timeFormat = locale.timeFormat(QLocale::ShortFormat);
    timeFormat.remove(QRegularExpression(QStringLiteral("[:.]?s+")));
    switch (group) {
    case Group::Today:
    case Group::Yesterday:
        return locale.toString(local.time(), timeFormat);
    case Group::LastSevenDays:
        return locale.dayName(local.date().dayOfWeek(), QLocale::ShortFormat) + QLatin1Char(' ') +
               locale.toString(local.time(), timeFormat);
    case Group::Older:
        return locale.toString(local.date(), QLocale::ShortFormat);
    }
    return {};
}

QVariant SessionListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    if (index.internalId() == kGroupRowId) {
        const GroupRows &group = m_groups.at(index.row());
        switch (role) {
        case Qt::DisplayRole:
        case TitleRole:
            return groupTitle(group.group);
        case IsGroupRole:
            return true;
        case GroupRole:
            return QVariant::fromValue(group.group);
        default:
            return {};
        }
    }
    const QModelIndex groupIndex = parent(index);
    if (!groupIndex.isValid())
        return {};
    const GroupRows &group = m_groups.at(groupIndex.row());
    const Entry &entry = group.entries.at(index.row());
    const QString title = entry.info.title.isEmpty() ? tr("Untitled session") : entry.info.title;
    switch (role) {
    case Qt::DisplayRole:
    case TitleRole:
        return title;
    case Qt::EditRole:
        return entry.info.title;
    case Qt::ToolTipRole:
        return Qt::convertFromPlainText(QStringLiteral("%1\n%2").arg(title, entry.info.workspace),
                                        Qt::WhiteSpaceNormal);
    case SessionIdRole:
        return entry.info.id;
    case PreviewRole:
        return entry.preview;
    case HighlightsRole:
        return QVariant::fromValue(entry.highlights);
    case UpdatedAtRole:
        return entry.info.updatedAt;
    case TimeTextRole:
        return timeText(entry.info.updatedAt, group.group);
    case PathRole:
        return entry.info.path;
    case DirectoryRole:
        return entry.info.directory;
    case WorkspaceRole:
        return entry.info.workspace;
    case MatchSeqRole:
        return QVariant::fromValue(entry.matchSeq);
    case IsGroupRole:
        return false;
    case GroupRole:
        return QVariant::fromValue(group.group);
    default:
        return {};
    }
}

bool SessionListModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::EditRole || !checkIndex(index, CheckIndexOption::IndexIsValid) ||
        index.internalId() == kGroupRowId)
        return false;
    const QModelIndex groupIndex = parent(index);
    if (!groupIndex.isValid())
        return false;
    Entry &entry = m_groups[groupIndex.row()].entries[index.row()];
    const QString title = value.toString().simplified();
    if (title.isEmpty() || title == entry.info.title)
        return false;
    entry.info.title = title;
    Q_EMIT dataChanged(index, index);
    Q_EMIT titleEdited(entry.info.id, title);
    return true;
}

Qt::ItemFlags SessionListModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    if (index.internalId() == kGroupRowId)
        return Qt::ItemIsEnabled;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsEditable | Qt::ItemNeverHasChildren;
}

QHash<int, QByteArray> SessionListModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractItemModel::roleNames();
    names.insert(SessionIdRole, "sessionId");
    names.insert(TitleRole, "title");
    names.insert(PreviewRole, "preview");
    names.insert(HighlightsRole, "highlights");
    names.insert(UpdatedAtRole, "updatedAt");
    names.insert(TimeTextRole, "timeText");
    names.insert(PathRole, "path");
    names.insert(DirectoryRole, "directory");
    names.insert(WorkspaceRole, "workspace");
    names.insert(MatchSeqRole, "matchSeq");
    names.insert(IsGroupRole, "isGroup");
    names.insert(GroupRole, "group");
    return names;
}

} // namespace keen
