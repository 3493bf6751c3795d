#pragma once

#include "session/sessionstore.h"

#include <QTimer>
#include <QWidget>

#include <memory>

class QAction;
class QLabel;
class QLineEdit;
class QToolButton;
class QTreeView;

namespace keen {

class SessionListModel;

// Every saved conversation, findable: the sessions of this workspace or of all, grouped by day, with a
// full-text search over messages, tool output and pre-compaction text. Open (Enter), Rename (F2), Delete
// (Delete, confirmed), Export to Markdown and Show in file manager. All disk work runs off the GUI thread.
class SessionBrowserPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SessionBrowserPanel)

public:
    enum class Scope { Workspace, All };

    explicit SessionBrowserPanel(QWidget *parent = nullptr);
    ~SessionBrowserPanel() override;

    void setStore(std::shared_ptr<SessionStore> store);
    void setWorkspace(const QString &workspace);
    QString workspace() const { return m_workspace; }
    void setScope(Scope scope);
    Scope scope() const { return m_scope; }

    SessionListModel *model() const { return m_model; }
    // The selected session's id, or empty.
    QString currentSessionId() const;
    // The session the window shows: selected once the list has it; none selected for a new, unsaved one,
    // so Rename and Delete never act on a session the person has left.
    void setOpenSession(const QString &sessionId);
    // The title the list shows for a session, or empty when it is not listed.
    QString sessionTitle(const QString &sessionId) const;
    // The session the agent is working in now (empty: none). Deleting it is refused until the turn ends:
    // its writer would go on appending to a transcript that is gone.
    void setBusySession(const QString &sessionId) { m_busyId = sessionId; }

public Q_SLOTS:
    void focusSearch();
    void refresh();
    void openCurrent();
    void renameCurrent();
    void deleteCurrent();
    void exportCurrent();
    // Asks where to save session sessionId (titled title) as Markdown and writes it there, off this thread
    // (File > Export Conversation as well); the outcome comes as actionFinished or actionFailed.
    void exportSession(const QString &sessionId, const QString &title);
    void showCurrentInFileManager();

Q_SIGNALS:
    void sessionOpenRequested(const QString &sessionId);
    // After sessionOpenRequested for a search result: the event that matched, to scroll the chat there.
    void searchMatchOpenRequested(const QString &sessionId, quint64 seq);
    // A rename, delete or export finished (message for the status bar), or failed (error).
    void actionFinished(const QString &message);
    void actionFailed(const QString &error);
    // A session's transcript was removed (the window leaves it if it is the one shown).
    void sessionDeleted(const QString &sessionId);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void applyScope();
    void updateActions();
    void updateStatus();
    void selectSession(const QString &sessionId);
    void renameSession(const QString &sessionId, const QString &title);
    void showError(const QString &error);
    void showMessage(const QString &message);

    std::shared_ptr<SessionStore> m_store;
    QString m_workspace;
    Scope m_scope = Scope::Workspace;
    QString m_message;
    QString m_selectedId;
    QString m_openId; // the session the window shows (setOpenSession)
    QString m_busyId;

    SessionListModel *m_model = nullptr;
    QLineEdit *m_search = nullptr;
    QToolButton *m_thisWorkspace = nullptr;
    QToolButton *m_allWorkspaces = nullptr;
    QTreeView *m_tree = nullptr;
    QLabel *m_status = nullptr;
    QWidget *m_actionsBar = nullptr;
    QAction *m_openAction = nullptr;
    QAction *m_renameAction = nullptr;
    QAction *m_deleteAction = nullptr;
    QAction *m_exportAction = nullptr;
    QAction *m_showFolderAction = nullptr;
    QTimer m_searchTimer;
};

} // namespace keen
