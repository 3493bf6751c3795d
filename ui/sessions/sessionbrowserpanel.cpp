#include "sessions/sessionbrowserpanel.h"

#include "base/whenfinished.h"
#include "session/sessionexporter.h"
#include "sessions/sessionitemdelegate.h"
#include "sessions/sessionlistmodel.h"

#include <QAction>
#include <QButtonGroup>
#include <QDesktopServices>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QToolButton>
#include <QTreeView>
#include <QUrl>
#include <QVBoxLayout>
#include <QtConcurrent>

namespace keen {

namespace {

// What a background rename, delete or export reports back. (Result<void> is not default-constructible,
// which QFuture's result store wants.)
struct Outcome
{
    bool ok = false;
    QString error;
};

Outcome outcomeOf(const Result<void> &result)
{
    return Outcome{result.ok(), result.error()};
}

QString suggestedFileName(const QString &title)
{
    QString name = title;
    name.replace(QRegularExpression(QStringLiteral("[^\\w\\- ]+")), QStringLiteral(" "));
    name = name.simplified().left(60).trimmed();
    if (name.isEmpty())
        name = QStringLiteral("session");
    return name + QStringLiteral(".md");
}

} // namespace

SessionBrowserPanel::SessionBrowserPanel(QWidget *parent)
    : QWidget(parent)
    , m_model(new SessionListModel(this))
{
    setObjectName(QStringLiteral("sessionBrowserPanel"));
    m_model->setObjectName(QStringLiteral("sessionListModel"));

    m_search = new QLineEdit(this);
    m_search->setObjectName(QStringLiteral("sessionSearchField"));
    m_search->setPlaceholderText(tr("Search messages and tool output"));
    m_search->setClearButtonEnabled(true);
    m_search->installEventFilter(this);

    m_thisWorkspace = new QToolButton(this);
    m_thisWorkspace->setObjectName(QStringLiteral("sessionScopeWorkspaceButton"));
    m_thisWorkspace->setText(tr("This folder"));
    m_thisWorkspace->setToolTip(tr("Sessions of the current workspace"));
    m_allWorkspaces = new QToolButton(this);
    m_allWorkspaces->setObjectName(QStringLiteral("sessionScopeAllButton"));
    m_allWorkspaces->setText(tr("All folders"));
    m_allWorkspaces->setToolTip(tr("Sessions of every workspace"));
    auto *scopeGroup = new QButtonGroup(this);
    scopeGroup->setObjectName(QStringLiteral("sessionScopeGroup"));
    for (QToolButton *button : {m_thisWorkspace, m_allWorkspaces}) {
        button->setCheckable(true);
        button->setAutoRaise(true);
        button->setToolButtonStyle(Qt::ToolButtonTextOnly);
        scopeGroup->addButton(button);
    }
    m_thisWorkspace->setChecked(true);

    m_tree = new QTreeView(this);
    m_tree->setObjectName(QStringLiteral("sessionTree"));
    m_tree->setModel(m_model);
    m_tree->setItemDelegate(new SessionItemDelegate(m_tree));
    m_tree->setHeaderHidden(true);
    m_tree->setRootIsDecorated(false);
    m_tree->setIndentation(0);
    m_tree->setItemsExpandable(false);
    m_tree->setExpandsOnDoubleClick(false);
    m_tree->setUniformRowHeights(false);
    m_tree->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tree->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tree->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_tree->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_tree->setFrameShape(QFrame::NoFrame);

    m_status = new QLabel(this);
    m_status->setTextFormat(Qt::PlainText); // paths and error texts
    m_status->setObjectName(QStringLiteral("sessionStatusLabel"));
    m_status->setWordWrap(true);
    m_status->setAlignment(Qt::AlignCenter);
    m_status->setForegroundRole(QPalette::PlaceholderText);
    m_status->setMargin(8);

    auto makeAction = [this](const QString &objectName, const QString &text, const QKeySequence &shortcut) {
        auto *action = new QAction(text, this);
        action->setObjectName(objectName);
        if (!shortcut.isEmpty()) {
            action->setShortcut(shortcut);
            action->setShortcutContext(Qt::WidgetShortcut);
        }
        m_tree->addAction(action);
        return action;
    };
    m_openAction = makeAction(QStringLiteral("openSessionAction"), tr("Open"), QKeySequence(Qt::Key_Return));
    m_openAction->setShortcuts({QKeySequence(Qt::Key_Return), QKeySequence(Qt::Key_Enter)});
    m_renameAction =
        makeAction(QStringLiteral("renameSessionAction"), tr("Rename"), QKeySequence(Qt::Key_F2));
    m_deleteAction =
        makeAction(QStringLiteral("deleteSessionAction"), tr("Delete…"), QKeySequence(QKeySequence::Delete));
    m_exportAction =
        makeAction(QStringLiteral("exportSessionAction"), tr("Export to Markdown…"), QKeySequence());
    m_showFolderAction =
        makeAction(QStringLiteral("showSessionFolderAction"), tr("Show in File Manager"), QKeySequence());
    m_openAction->setToolTip(tr("Open the session (Enter)"));
    m_renameAction->setToolTip(tr("Rename the session (F2)"));
    m_deleteAction->setToolTip(tr("Delete the session (Delete)"));

    // A row of buttons, not a QToolBar: a toolbar outside a main window pushes what does not fit (the
    // German labels at the sidebar's default width) behind an extension button that does not open.
    m_actionsBar = new QWidget(this);
    m_actionsBar->setObjectName(QStringLiteral("sessionActionsBar"));
    auto *actionsRow = new QHBoxLayout(m_actionsBar);
    actionsRow->setContentsMargins(0, 0, 0, 0);
    actionsRow->setSpacing(0);
    for (QAction *action : {m_openAction, m_renameAction, m_deleteAction}) {
        auto *button = new QToolButton(m_actionsBar);
        button->setObjectName(action->objectName() + QStringLiteral("Button"));
        button->setDefaultAction(action);
        button->setAutoRaise(true);
        button->setToolButtonStyle(Qt::ToolButtonTextOnly);
        actionsRow->addWidget(button);
    }
    auto *more = new QToolButton(m_actionsBar);
    more->setObjectName(QStringLiteral("sessionMoreButton"));
    more->setText(tr("More"));
    more->setToolTip(tr("Export or show the session's folder"));
    more->setPopupMode(QToolButton::InstantPopup);
    more->setAutoRaise(true);
    more->addAction(m_exportAction);
    more->addAction(m_showFolderAction);
    actionsRow->addWidget(more);
    actionsRow->addStretch(1);

    auto *scopeRow = new QHBoxLayout;
    scopeRow->setContentsMargins(0, 0, 0, 0);
    scopeRow->setSpacing(2);
    scopeRow->addWidget(m_thisWorkspace);
    scopeRow->addWidget(m_allWorkspaces);
    scopeRow->addStretch(1);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 4);
    layout->setSpacing(4);
    layout->addWidget(m_search);
    layout->addLayout(scopeRow);
    layout->addWidget(m_tree, 1);
    layout->addWidget(m_status);
    layout->addWidget(m_actionsBar);

    m_searchTimer.setSingleShot(true);
    m_searchTimer.setInterval(250);
    connect(&m_searchTimer, &QTimer::timeout, this, [this] {
        m_message.clear();
        m_model->setSearchQuery(m_search->text().trimmed());
        updateStatus();
    });
    connect(m_search, &QLineEdit::textChanged, this, [this] { m_searchTimer.start(); });
    connect(m_search, &QLineEdit::returnPressed, this, [this] {
        if (m_searchTimer.isActive()) {
            m_searchTimer.stop();
            m_model->setSearchQuery(m_search->text().trimmed());
        }
        // Enter opens the highlighted hit (the first one unless Down moved on), as launchers do.
        QModelIndex hit = m_tree->currentIndex();
        if (!m_model->sessionAt(hit))
            hit = m_model->firstSession();
        if (hit.isValid()) {
            m_tree->setCurrentIndex(hit);
            openCurrent();
        }
    });
    connect(scopeGroup, &QButtonGroup::buttonClicked, this, [this](QAbstractButton *button) {
        setScope(button == m_allWorkspaces ? Scope::All : Scope::Workspace);
    });

    connect(m_tree, &QTreeView::activated, this, [this](const QModelIndex &index) {
        if (m_model->sessionAt(index)) {
            m_tree->setCurrentIndex(index);
            openCurrent();
        }
    });
    connect(m_openAction, &QAction::triggered, this, &SessionBrowserPanel::openCurrent);
    connect(m_renameAction, &QAction::triggered, this, &SessionBrowserPanel::renameCurrent);
    connect(m_deleteAction, &QAction::triggered, this, &SessionBrowserPanel::deleteCurrent);
    connect(m_exportAction, &QAction::triggered, this, &SessionBrowserPanel::exportCurrent);
    connect(m_showFolderAction, &QAction::triggered, this, &SessionBrowserPanel::showCurrentInFileManager);

    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex &current) {
                if (const auto info = m_model->sessionAt(current))
                    m_selectedId = info->id;
                updateActions();
            });
    connect(m_model, &QAbstractItemModel::rowsInserted, this,
            [this](const QModelIndex &parent, int first, int last) {
                if (!parent.isValid()) {
                    for (int row = first; row <= last; ++row)
                        m_tree->expand(m_model->index(row, 0));
                }
            });
    connect(m_model, &QAbstractItemModel::modelReset, m_tree, &QTreeView::expandAll);
    connect(m_model, &SessionListModel::loadingChanged, this, &SessionBrowserPanel::updateStatus);
    connect(m_model, &SessionListModel::refreshed, this, [this] {
        m_tree->expandAll();
        if (!m_tree->currentIndex().isValid() && !m_selectedId.isEmpty())
            selectSession(m_selectedId);
        updateActions();
        updateStatus();
    });
    connect(m_model, &SessionListModel::titleEdited, this, &SessionBrowserPanel::renameSession);

    updateActions();
    updateStatus();
}

SessionBrowserPanel::~SessionBrowserPanel() = default;

void SessionBrowserPanel::setStore(std::shared_ptr<SessionStore> store)
{
    m_store = std::move(store);
    m_model->setSessionsRoot(m_store ? m_store->root() : QString());
    updateStatus();
}

void SessionBrowserPanel::setWorkspace(const QString &workspace)
{
    m_workspace = workspace.isEmpty() ? QString() : QDir::cleanPath(QDir(workspace).absolutePath());
    m_thisWorkspace->setEnabled(!m_workspace.isEmpty());
    m_thisWorkspace->setToolTip(m_workspace.isEmpty()
                                    ? tr("Sessions of the current workspace")
                                    : tr("Sessions of %1").arg(QDir::toNativeSeparators(m_workspace)));
    applyScope();
}

void SessionBrowserPanel::setScope(Scope scope)
{
    m_scope = scope;
    (scope == Scope::All ? m_allWorkspaces : m_thisWorkspace)->setChecked(true);
    applyScope();
}

void SessionBrowserPanel::applyScope()
{
    m_message.clear(); // "Deleted …" spoke of the list shown before
    const bool all = m_scope == Scope::All || m_workspace.isEmpty();
    m_model->setWorkspaceFilter(all ? QString() : m_workspace);
    updateStatus();
}

QString SessionBrowserPanel::currentSessionId() const
{
    const auto info = m_model->sessionAt(m_tree->currentIndex());
    return info ? info->id : QString();
}

bool SessionBrowserPanel::eventFilter(QObject *watched, QEvent *event)
{
    // Down moves from the search field into the results; Escape clears the search.
    if (watched == m_search && event->type() == QEvent::KeyPress) {
        const auto *key = static_cast<QKeyEvent *>(event);
        if (key->key() == Qt::Key_Down) {
            if (!m_tree->currentIndex().isValid())
                m_tree->setCurrentIndex(m_model->firstSession());
            m_tree->setFocus(Qt::TabFocusReason);
            return true;
        }
        if (key->key() == Qt::Key_Escape && !m_search->text().isEmpty()) {
            m_search->clear();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void SessionBrowserPanel::focusSearch()
{
    m_search->setFocus(Qt::ShortcutFocusReason);
    m_search->selectAll();
}

void SessionBrowserPanel::refresh()
{
    m_model->refresh();
}

void SessionBrowserPanel::setOpenSession(const QString &sessionId)
{
    m_openId = sessionId;
    m_selectedId = sessionId;
    m_tree->selectionModel()->clear();
    selectSession(sessionId); // a session not listed yet is selected when the refresh brings it
    updateActions();
}

QString SessionBrowserPanel::sessionTitle(const QString &sessionId) const
{
    const std::optional<SessionInfo> info = m_model->sessionAt(m_model->indexForSession(sessionId));
    return info ? info->title : QString();
}

void SessionBrowserPanel::selectSession(const QString &sessionId)
{
    const QModelIndex index = m_model->indexForSession(sessionId);
    if (index.isValid())
        m_tree->setCurrentIndex(index);
}

void SessionBrowserPanel::updateActions()
{
    const bool haveSession = m_model->sessionAt(m_tree->currentIndex()).has_value();
    m_openAction->setEnabled(haveSession);
    m_renameAction->setEnabled(haveSession && m_store);
    m_deleteAction->setEnabled(haveSession && m_store);
    m_exportAction->setEnabled(haveSession && m_store);
    m_showFolderAction->setEnabled(haveSession);
}

void SessionBrowserPanel::updateStatus()
{
    QString text;
    const int count = m_model->sessionCount();
    if (!m_message.isEmpty()) {
        text = m_message;
    } else if (!m_model->lastError().isEmpty() && count == 0) {
        text = m_model->lastError();
    } else if (m_model->isSearching()) {
        // The list shown while a search runs is the one before it: it does not match anything yet.
        if (m_model->isLoading())
            text = tr("Searching…");
        else if (count == 0)
            text = tr("No sessions match \u201c%1\u201d.").arg(m_model->searchQuery().trimmed());
        else if (m_model->matchingSessionCount() > count)
            text = tr("The newest %1 of %2 matching sessions; add words to narrow the search.")
                       .arg(count)
                       .arg(m_model->matchingSessionCount());
        else
            text = count == 1 ? tr("1 matching session") : tr("%1 matching sessions").arg(count);
    } else if (count == 0) {
        if (!m_store)
            text = tr("No session store.");
        else if (m_model->isLoading())
            text = tr("Loading sessions…");
        else if (m_model->workspaceFilter().isEmpty())
            text = tr("No saved sessions.");
        else
            text = tr("No saved sessions for this folder.");
    }
    m_status->setText(text);
    m_status->setVisible(!text.isEmpty());
}

void SessionBrowserPanel::showError(const QString &error)
{
    m_message = error;
    updateStatus();
    Q_EMIT actionFailed(error);
}

void SessionBrowserPanel::showMessage(const QString &message)
{
    m_message = message;
    updateStatus();
    Q_EMIT actionFinished(message);
}

void SessionBrowserPanel::openCurrent()
{
    const QModelIndex current = m_tree->currentIndex();
    const auto info = m_model->sessionAt(current);
    if (!info)
        return;
    Q_EMIT sessionOpenRequested(info->id);
    const auto seq = current.data(SessionListModel::MatchSeqRole).value<quint64>();
    if (m_model->isSearching() && seq > 0)
        Q_EMIT searchMatchOpenRequested(info->id, seq);
}

void SessionBrowserPanel::renameCurrent()
{
    const QModelIndex current = m_tree->currentIndex();
    if (m_store && m_model->sessionAt(current))
        m_tree->edit(current);
}

void SessionBrowserPanel::renameSession(const QString &sessionId, const QString &title)
{
    if (!m_store)
        return;
    auto store = m_store;
    whenFinished(
        QtConcurrent::run([store, sessionId, title] { return outcomeOf(store->rename(sessionId, title)); }),
        this, [this, title](const Outcome &outcome) {
            if (outcome.ok)
                showMessage(tr("Renamed to \u201c%1\u201d.").arg(title));
            else
                showError(outcome.error);
            m_model->refresh();
        });
}

void SessionBrowserPanel::deleteCurrent()
{
    const auto info = m_model->sessionAt(m_tree->currentIndex());
    if (!info || !m_store)
        return;
    const QString title = m_tree->currentIndex().data(Qt::DisplayRole).toString();
    if (!m_busyId.isEmpty() && info->id == m_busyId) {
        showError(
            tr("The agent is working in \u201c%1\u201d. Stop it before deleting the session.").arg(title));
        return;
    }
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Delete Session"),
                                tr("Delete \u201c%1\u201d?").arg(title), QMessageBox::NoButton, this);
    box->setTextFormat(Qt::PlainText); // the title is a prompt: never taken as rich text
    box->setObjectName(QStringLiteral("deleteSessionConfirmation"));
    box->setInformativeText(info->id == m_openId
                                ? tr("It is the conversation open in the window, which starts a new session. "
                                     "Its transcript is removed from disk. This cannot be undone.")
                                : tr("Its transcript is removed from disk. This cannot be undone."));
    QPushButton *remove = box->addButton(tr("Delete"), QMessageBox::DestructiveRole);
    remove->setObjectName(QStringLiteral("confirmDeleteButton"));
    QPushButton *cancel = box->addButton(QMessageBox::Cancel);
    cancel->setObjectName(QStringLiteral("cancelDeleteButton"));
    box->setDefaultButton(cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    const QString sessionId = info->id;
    connect(box, &QMessageBox::buttonClicked, this,
            [this, remove, sessionId, title](QAbstractButton *clicked) {
                if (clicked != remove)
                    return;
                auto store = m_store;
                whenFinished(
                    QtConcurrent::run([store, sessionId] { return outcomeOf(store->remove(sessionId)); }),
                    this, [this, title, sessionId](const Outcome &outcome) {
                        if (outcome.ok)
                            showMessage(tr("Deleted \u201c%1\u201d.").arg(title));
                        else
                            showError(outcome.error);
                        m_model->refresh();
                        if (outcome.ok)
                            Q_EMIT sessionDeleted(sessionId);
                    });
            });
    box->open();
}

void SessionBrowserPanel::exportCurrent()
{
    if (const auto info = m_model->sessionAt(m_tree->currentIndex()))
        exportSession(info->id, info->title);
}

void SessionBrowserPanel::exportSession(const QString &sessionId, const QString &title)
{
    if (sessionId.isEmpty() || !m_store)
        return;
    QString folder = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    if (folder.isEmpty())
        folder = QDir::homePath();
    auto *dialog =
        new QFileDialog(this, tr("Export Session to Markdown"), folder, tr("Markdown (*.md);;All files (*)"));
    dialog->setObjectName(QStringLiteral("exportSessionDialog"));
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setFileMode(QFileDialog::AnyFile);
    dialog->setDefaultSuffix(QStringLiteral("md"));
    dialog->selectFile(suggestedFileName(title));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, [this, sessionId](const QString &path) {
        if (path.isEmpty())
            return;
        auto store = m_store;
        whenFinished(QtConcurrent::run([store, sessionId, path] {
                         return outcomeOf(SessionExporter::exportToFile(*store, sessionId, path));
                     }),
                     this, [this, path](const Outcome &outcome) {
                         if (outcome.ok)
                             showMessage(tr("Exported to %1.").arg(QDir::toNativeSeparators(path)));
                         else
                             showError(outcome.error);
                     });
    });
    dialog->open();
}

void SessionBrowserPanel::showCurrentInFileManager()
{
    const auto info = m_model->sessionAt(m_tree->currentIndex());
    if (!info)
        return;
    if (!QDesktopServices::openUrl(QUrl::fromLocalFile(info->directory)))
        showError(tr("Cannot open %1 in the file manager.").arg(QDir::toNativeSeparators(info->directory)));
}

} // namespace keen
