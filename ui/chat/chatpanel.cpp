#include "chat/chatpanel.h"

#include "agent/memoryreport.h"
#include "agent/usageledger.h"
#include "base/whenfinished.h"
#include "chat/chatcolors.h"
#include "chat/chatmodel.h"
#include "chat/chatview.h"
#include "chat/compactionreviewdialog.h"
#include "chat/findbar.h"
#include "chat/inputeditor.h"
#include "chat/queuechips.h"
#include "chat/slashcommands.h"
#include "chat/spinnerline.h"
#include "chat/tooldisplay.h"
#include "chat/workspacefileindex.h"
#include "config/settings.h"
#include "contextdialog.h"
#include "droppeddetailsdialog.h"
#include "pinsdialog.h"
#include "tokenformat.h"

#include <QAction>
#include <QDesktopServices>
#include <QFrame>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QThreadPool>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <optional>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <utility>

namespace keen {

ChatPanel::ChatPanel(AgentSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_model(new ChatModel(this))
    , m_files(new WorkspaceFileIndex(this))
{
    setObjectName(QStringLiteral("chatPanel"));
    m_view = new ChatView(m_model, this);
    m_spinner = new SpinnerLine(this);
    m_chips = new QueueChips(this);
    m_inputFrame = new QFrame(this);
    m_inputFrame->setObjectName(QStringLiteral("inputFrame"));
    m_inputFrame->setFrameShape(QFrame::NoFrame);
    m_input = new InputEditor(m_inputFrame);
    m_input->setCommands(SlashCommands::all());
    // Issue 16: the pins and their budget, above the input while there are any.
    m_pinsButton = new QToolButton(m_inputFrame);
    m_pinsButton->setObjectName(QStringLiteral("pinsButton"));
    m_pinsButton->setAutoRaise(true);
    m_pinsButton->setToolTip(tr("What every compaction keeps verbatim (Conversation > Pins)"));
    m_pinsButton->hide();
    auto *frameLayout = new QVBoxLayout(m_inputFrame);
    frameLayout->setContentsMargins(10, 4, 10, 8);
    frameLayout->addWidget(m_pinsButton, 0, Qt::AlignRight);
    frameLayout->addWidget(m_input);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_view, 1);
    m_findBar = new FindBar(this);
    layout->addWidget(m_findBar);
    layout->addWidget(m_spinner);
    layout->addWidget(m_chips);
    layout->addWidget(m_inputFrame);
    setFocusProxy(m_input);
    // Tab from the prompt goes to the conversation (reference 6.3: Tab moves between input and viewport),
    // where the keys scroll and select; the window's other controls follow it.
    QWidget::setTabOrder(m_input, m_view);

    m_view->setShowThinking(m_showThinking);

    m_findAction = new QAction(tr("&Find in Conversation…"), this);
    m_findAction->setObjectName(QStringLiteral("findAction"));
    m_findAction->setShortcut(QKeySequence::Find);
    connect(m_findAction, &QAction::triggered, this, &ChatPanel::findInConversation);
    m_findNextAction = new QAction(tr("Find &Next"), this);
    m_findNextAction->setShortcut(QKeySequence::FindNext);
    connect(m_findNextAction, &QAction::triggered, this, &ChatPanel::findNext);
    m_findPreviousAction = new QAction(tr("Find Pre&vious"), this);
    m_findPreviousAction->setShortcut(QKeySequence::FindPrevious);
    connect(m_findPreviousAction, &QAction::triggered, this, &ChatPanel::findPrevious);
    addActions({m_findAction, m_findNextAction, m_findPreviousAction});

    m_baseFont = m_view->font();
    m_inputBaseFont = m_input->font();
    constexpr int ZoomStep = 10;
    m_zoomInAction = new QAction(tr("Zoom &In"), this);
    m_zoomInAction->setObjectName(QStringLiteral("zoomInAction"));
    // Ctrl++ is Ctrl+Shift+= on most keyboards: Ctrl+= too, as browsers and editors accept.
    m_zoomInAction->setShortcuts({QKeySequence::ZoomIn, QKeySequence(QStringLiteral("Ctrl+="))});
    connect(m_zoomInAction, &QAction::triggered, this, [this] { zoomTo(m_zoomPercent + ZoomStep); });
    m_zoomOutAction = new QAction(tr("Zoom &Out"), this);
    m_zoomOutAction->setObjectName(QStringLiteral("zoomOutAction"));
    m_zoomOutAction->setShortcut(QKeySequence::ZoomOut);
    connect(m_zoomOutAction, &QAction::triggered, this, [this] { zoomTo(m_zoomPercent - ZoomStep); });
    m_zoomResetAction = new QAction(tr("&Actual Size"), this);
    m_zoomResetAction->setObjectName(QStringLiteral("zoomResetAction"));
    m_zoomResetAction->setShortcut(QKeySequence(QStringLiteral("Ctrl+0")));
    connect(m_zoomResetAction, &QAction::triggered, this, [this] { zoomTo(100); });
    addActions({m_zoomInAction, m_zoomOutAction, m_zoomResetAction});
    connect(m_view, &ChatView::zoomRequested, this,
            [this](int steps) { zoomTo(m_zoomPercent + steps * ZoomStep); });
    connect(m_findBar, &FindBar::searchChanged, this, &ChatPanel::runSearch);
    connect(m_findBar, &FindBar::nextRequested, this, &ChatPanel::findNext);
    connect(m_findBar, &FindBar::previousRequested, this, &ChatPanel::findPrevious);
    connect(m_findBar, &FindBar::closed, this, [this] {
        m_search.clear(); // its copies of the rows' text are for the bar's searches only
        m_input->setFocus(Qt::OtherFocusReason);
    });
    // Rows that come, go or change make the matches stale; they are found again on the next step. A new
    // conversation is searched again at once while the bar is open, so its count is right.
    // While the bar is open its count follows the conversation (a streaming reply, an opened session), at
    // most twice a second and without moving the view.
    m_findRefresh.setSingleShot(true);
    m_findRefresh.setInterval(500);
    connect(&m_findRefresh, &QTimer::timeout, this, &ChatPanel::refreshMatches);
    const auto changed = [this] {
        m_matchesStale = true;
        if (m_findBar->isVisible() && !m_findText.isEmpty() && !m_findRefresh.isActive())
            m_findRefresh.start();
    };
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(m_model, signal, this, changed);
    connect(m_model, &QAbstractItemModel::dataChanged, this, changed);
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        m_search.clear();
        m_matches.clear();
        m_currentMatch = -1;
        if (m_findBar->isVisible())
            runSearch(m_findBar->text());
    });

    connect(m_input, &InputEditor::submitted, this, &ChatPanel::submitInput);
    connect(m_input, &InputEditor::escapePressed, this, &ChatPanel::escape);
    // Ctrl+C in the input with nothing selected there: what is selected in the conversation (a row, text, a
    // found match) is copied first, as the person sees it highlighted; with nothing selected, or a selection
    // scrolled out of sight (found trying the window: Ctrl+C then seemed dead), it interrupts.
    connect(m_input, &InputEditor::interruptRequested, this, [this] {
        if (m_view->hasSelectedText() && m_view->isSelectionInView())
            m_view->copySelection();
        else
            interruptFromKeyboard();
    });
    connect(m_input, &InputEditor::pageRequested, m_view, &ChatView::scrollPage);
    connect(m_view, &ChatView::escapePressed, this, &ChatPanel::escape);
    connect(m_view, &ChatView::retryRequested, this, [this] {
        const QString prompt = m_model->retryPrompt();
        if (prompt.isEmpty() || m_session->isBusy())
            return;
        submitInput(prompt);
        m_input->setFocus(Qt::OtherFocusReason);
    });
    connect(m_view, &ChatView::interruptRequested, this, &ChatPanel::interruptFromKeyboard);
    connect(m_view, &ChatView::permissionDecided, this, &ChatPanel::onPermissionDecided);
    connect(m_view, &ChatView::questionAnswered, this, &ChatPanel::onQuestionAnswered);
    connect(m_chips, &QueueChips::removeRequested, this, &ChatPanel::removeQueued);
    connect(m_pinsButton, &QToolButton::clicked, this, &ChatPanel::showPinsDialog);
    connect(m_view, &ChatView::pinRequested, this,
            [this](const Pin &pinned, quint64 itemId) { pin(pinned, itemId); });
    connect(m_files, &WorkspaceFileIndex::filesChanged, this,
            [this] { m_input->setFiles(m_files->files()); });
    connectSession();
    applyModeStyle();
}

ChatPanel::~ChatPanel() = default;

void ChatPanel::connectSession()
{
    connect(m_session, &AgentSession::turnStarted, this, &ChatPanel::onTurnStarted);
    connect(m_session, &AgentSession::streamEvent, this, &ChatPanel::onStreamEvent);
    connect(m_session, &AgentSession::turnFinished, this, &ChatPanel::onTurnFinished);
    connect(m_session, &AgentSession::asideStarted, this, &ChatPanel::onAsideStarted);
    connect(m_session, &AgentSession::reviewStarted, this, [this](const QString &focus) {
        m_asideRow = m_model->addAside(focus, ChatModel::Aside::Review);
        m_view->scrollToBottom();
    });
    connect(m_session, &AgentSession::asideEvent, this, [this](const StreamEvent &event) {
        if (event.type == StreamEvent::Type::Chunk)
            m_model->appendAside(m_asideRow, event.content);
        else if (event.type == StreamEvent::Type::ToolStart && event.toolCall)
            // A review's reads, one quoted line each between its paragraphs.
            m_model->appendAside(m_asideRow,
                                 QStringLiteral("\n\n> ") + ToolDisplay::label(event.toolCall->name) +
                                     QLatin1Char(' ') +
                                     ToolDisplay::detail(event.toolCall->name, event.toolCall->input) +
                                     QStringLiteral("\n\n"));
    });
    connect(m_session, &AgentSession::asideFinished, this, &ChatPanel::onAsideFinished);
    connect(m_session, &AgentSession::shellCommandStarted, this, &ChatPanel::onShellCommandStarted);
    connect(m_session, &AgentSession::shellCommandFinished, this, &ChatPanel::onShellCommandFinished);
    connect(m_session, &AgentSession::compactionStarted, this, &ChatPanel::onCompactionStarted);
    connect(m_session, &AgentSession::compactionFinished, this, &ChatPanel::onCompactionFinished);
    connect(m_session, &AgentSession::compactionReviewRequested, this,
            &ChatPanel::onCompactionReviewRequested);
    connect(m_session, &AgentSession::compactionUndone, this, &ChatPanel::onCompactionUndone);
    connect(m_session, &AgentSession::undoCompactionFailed, this, [this](const QString &error) {
        m_model->addLine(ChatItem::Kind::Error, tr("Could not undo the compaction: %1").arg(error));
        setBusy(m_session->isBusy());
        scheduleDrain();
    });
    connect(m_view, &ChatView::undoCompactionRequested, this, [this](quint64 seq) {
        undoCompaction(seq);
        m_input->setFocus(
            Qt::OtherFocusReason); // the conversation goes on from the input, as after Try again
    });
    connect(this, &ChatPanel::undoableCompactionChanged, this, &ChatPanel::updateUndoOffer);
    m_view->setUndoableCompaction([this] { return m_session->undoableCompaction(); });
    connect(m_session, &AgentSession::autoCompactionCheckpointed, this,
            &ChatPanel::onAutoCompactionCheckpointed);
    // Found when tried: Stop while a permission card had the focus left it on the conversation, so what
    // the person typed next ("what should the agent do instead?") went nowhere.
    connect(m_view, &ChatView::settledCardHadFocus, this,
            [this] { m_input->setFocus(Qt::OtherFocusReason); });
    connect(m_session, &AgentSession::permissionRequested, this, &ChatPanel::onPermissionRequested);
    connect(m_session, &AgentSession::interactionSettled, this, [this](quint64 requestId) {
        m_model->settlePermission(requestId, m_decisions.value(requestId, ChatModel::cancelledOutcome()));
        // Found when tried: Stop while the agent's question waited left its card open, Submit and all.
        m_model->settleQuestion(requestId, ChatModel::questionOutcome(UserAnswer::cancel()));
        updateProviderWait();
    });
    connect(m_session, &AgentSession::questionAsked, this,
            [this](quint64 questionId, const UserQuestionList &questions) {
                m_model->addQuestion(questionId, questions);
                if (m_input->toPlainText().isEmpty())
                    m_view->focusPendingCard();
            });
    connect(m_session, &AgentSession::notification, this, &ChatPanel::notify);
    connect(m_session, &AgentSession::compactionPolicySaved, this, [this](const CompactionPolicy &policy) {
        m_model->addLine(ChatItem::Kind::Status, ChatModel::compactionPolicyText(policy));
    });
    connect(m_session, &AgentSession::usageChanged, this, &ChatPanel::metricsChanged);
    connect(m_session, &AgentSession::skillsChanged, this, &ChatPanel::onSkillsChanged);
    connect(m_session, &AgentSession::mcpStatusChanged, this, [this] {
        // /mcp (connect) while a server starts: the table once each one connected or failed.
        if (!m_mcpTableWhenSettled)
            return;
        bool starting = false;
        const QString table = m_session->mcpStatusMarkdown(&starting);
        if (starting)
            return;
        m_mcpTableWhenSettled = false;
        m_model->addLine(ChatItem::Kind::Info, table);
        m_view->scrollToBottom();
    });
    connect(m_session, &AgentSession::mcpSignInNeeded, this, [this](const QString &server, const QUrl &page) {
        // The page opens in the browser; the address is in the chat too, for a browser that did not open.
        const bool opened = QDesktopServices::openUrl(page);
        const QString text =
            opened ? tr("Sign in to MCP server **%1** in your browser. If it did not open, open this address:"
                        "\n\n<%2>\n\nWaiting up to %3 minutes; Esc cancels, `/mcp connect %1` starts again.")
                   : tr("No web browser could be started. To sign in to MCP server **%1**, open this address "
                        "in one:\n\n<%2>\n\nWaiting up to %3 minutes; Esc cancels, `/mcp connect %1` starts "
                        "again.");
        // One arg() for all: the address holds percent signs that a second arg() would read.
        m_model->addLine(ChatItem::Kind::Info, text.arg(server, QString::fromUtf8(page.toEncoded()),
                                                        QString::number(AgentSession::McpSignInMinutes)));
        m_view->scrollToBottom();
    });
    connect(m_model, &ChatModel::historyCompleted, this, &ChatPanel::finishOpening);
    connect(m_session, &AgentSession::sessionPreviewed, this, [this](const QList<SessionEvent> &lastEvents) {
        // The last screen at once, while the rest of the session is read (issue 11).
        if (lastEvents.isEmpty())
            return;
        ++m_historyGeneration;
        if (!m_preview)
            m_beforePreview = m_model->rows(); // shown again if the session cannot be opened after all
        m_model->replay(lastEvents);
        m_preview = Preview{lastEvents.constFirst().seq, lastEvents.size(), m_model->rowCount()};
    });
    connect(m_session, &AgentSession::sessionOpened, this, [this](const QList<SessionEvent> &events) {
        const std::optional<Preview> preview = std::exchange(m_preview, std::nullopt);
        m_beforePreview = ChatModel::Rows();
        const quint64 generation = ++m_historyGeneration;
        Q_EMIT metricsChanged();
        if (preview && events.size() == preview->events && events.constFirst().seq == preview->firstSeq) {
            finishOpening(); // the last screen was all of it
            return;
        }
        if (!preview) {
            m_model->replay(events);
            finishOpening();
            return;
        }
        // The whole history's rows are built on a worker, then come in above the last screen in batches.
        m_completingHistory = true;
        whenFinished(QtConcurrent::run(&ChatModel::replayRows, events), this,
                     [this, generation, preview](ChatModel::Rows rows) {
                         if (generation != m_historyGeneration)
                             return; // another session or a new one took the view meanwhile
                         if (!m_model->completeHistory(rows, preview->firstSeq, preview->rows)) {
                             m_model->restore(
                                 std::move(rows)); // the file changed between the two reads: all at once
                             finishOpening();
                         }
                     });
    });
    connect(m_session, &AgentSession::sessionOpening, this, [this] {
        m_spinner->setOpening(true);
        m_input->setEnabled(false);
    });
    connect(m_session, &AgentSession::sessionOpenFailed, this, [this](const QString &error) {
        if (m_preview) { // the conversation shown before the preview goes on
            ++m_historyGeneration;
            m_preview.reset();
            m_model->restore(std::exchange(m_beforePreview, ChatModel::Rows()));
        }
        m_spinner->setOpening(false);
        m_input->setEnabled(true);
        m_model->addLine(ChatItem::Kind::Error, error);
    });
    connect(m_session, &AgentSession::errorOccurred, this,
            [this](const QString &message) { m_model->addLine(ChatItem::Kind::Error, message); });
    // Written after the turn, on the ledger's thread: the reply is shown, its cost is not kept for /usage.
    connect(m_session, &AgentSession::usageNotRecorded, this, [this](const QString &why) {
        m_model->addLine(ChatItem::Kind::Error,
                         tr("%1; the usage of this session is not recorded for /usage.").arg(why));
    });
    // Said when the session opens, not first at a message or an undo that cannot be saved.
    connect(m_session, &AgentSession::sessionInUseElsewhere, this,
            [this](const QString &message) { m_model->addLine(ChatItem::Kind::Error, message); });
    connect(m_session, &AgentSession::pinsChanged, this, &ChatPanel::updatePinsButton);
    // One row for every pin added or removed, whoever asked (Pins dialog, a row's menu, /pin, Pin the
    // Original), once it is on disk: as the transcript's pin_added and pin_removed replay.
    connect(m_session, &AgentSession::pinAdded, this, [this](const Pin &pinned) {
        m_model->addLine(ChatItem::Kind::Status, ChatModel::pinnedText(pinned));
    });
    connect(m_session, &AgentSession::pinRemoved, this, [this](const Pin &removed) {
        m_model->addLine(ChatItem::Kind::Status, ChatModel::unpinnedText(removed.headline()));
    });
    connect(m_session, &AgentSession::projectPermissionsChanged, this,
            [this](bool allowed, const QStringList &names) {
                const QString list = names.join(QStringLiteral(", "));
                m_model->addLine(ChatItem::Kind::Status,
                                 allowed ? tr("✓ Allowed: %1").arg(list) : tr("✓ Reset: %1").arg(list));
            });
    connect(
        m_session, &AgentSession::droppedDetailsFound, this,
        [this](quint64, bool, const QList<DroppedDetail> &details) { m_model->addDroppedDetails(details); });
    connect(m_view, &ChatView::droppedDetailsRequested, this, &ChatPanel::showDroppedDetails);
    connect(m_session, &AgentSession::pinFailed, this,
            [this](const QString &error) { m_model->addLine(ChatItem::Kind::Error, error); });
    connect(m_session, &AgentSession::pinBudgetExceeded, this, [this](qint64 used, qint64 budget) {
        // Every pin was kept; the person is told they take more than their share (issue 16). One dialog: one
        // still open takes the new numbers rather than a second one piling up over the running turn.
        const QString text =
            tr("The pins take about %1 tokens, more than their budget of %2 tokens. Every pin "
               "was kept after the compaction; unpin something in Conversation > Pins, or "
               "raise the pin budget in Settings.")
                .arg(QLocale().toString(used), QLocale().toString(budget));
        const auto open = findChildren<QMessageBox *>(QStringLiteral("pinsOverBudgetDialog"));
        for (QMessageBox *box : open) {
            if (box->isVisible()) {
                box->setText(text);
                return;
            }
        }
        auto *box = new QMessageBox(QMessageBox::Warning, tr("Pins"), text, QMessageBox::Ok, this);
        box->setObjectName(QStringLiteral("pinsOverBudgetDialog"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
}

void ChatPanel::updatePinsButton()
{
    const PinList &pins = m_session->pins();
    m_pinsButton->setVisible(!pins.isEmpty());
    m_pinsButton->setText(tr("Pins: %n · %1 of %2 tokens", nullptr, int(pins.size()))
                              .arg(TokenFormat::compact(m_session->pinnedTokens()),
                                   TokenFormat::compact(m_session->pinBudget())));
}

void ChatPanel::showPinsDialog()
{
    auto *dialog = new PinsDialog(m_session, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
}

void ChatPanel::showDroppedDetails(quint64 itemId)
{
    const int row = m_model->rowOf(itemId);
    if (row < 0 || m_model->item(row).dropped.isEmpty())
        return;
    auto *dialog = new DroppedDetailsDialog(
        m_model->item(row).dropped, [this](const Pin &original) { return pin(original); }, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
}

bool ChatPanel::pin(const Pin &pinned, quint64 itemId)
{
    if (!PinsDialog::addOrExplain(m_session, pinned, this))
        return false;
    if (itemId != 0)
        m_model->markPinned(itemId);
    return true; // its row comes with AgentSession::pinAdded
}

void ChatPanel::finishOpening()
{
#ifdef __GLIBC__
    // Reading a long session parsed its whole file on workers: give the freed memory back (about half the
    // process's memory after a 30 MB session; glibc keeps it otherwise), off this thread.
    if (m_completingHistory)
        QThreadPool::globalInstance()->start([] { malloc_trim(0); });
#endif
    m_completingHistory = false;
    updateUndoOffer();
    if (m_spinner->isOpening()) {
        m_spinner->setOpening(false);
        m_input->setEnabled(true);
        m_input->setFocus();
    }
    Q_EMIT historyShown();
}

bool ChatPanel::isBusy() const
{
    return m_session->isBusy();
}

void ChatPanel::setWorkspace(const QString &workspace)
{
    m_files->rescan(workspace);
    m_input->setWorkspace(workspace);
    m_session->reloadCatalogs(); // the folder's own skills
}

void ChatPanel::notify(const QString &text)
{
    m_spinner->showNotification(text);
}

void ChatPanel::setBusy(bool busy)
{
    if (m_busy == busy)
        return;
    m_busy = busy;
    updateUndoOffer();
    Q_EMIT busyChanged(busy);
}

void ChatPanel::updateUndoOffer()
{
    // Only while nothing runs, as Conversation > Undo Compaction: an undo cannot go under a running turn.
    m_model->offerCompactionUndo(m_busy ? 0 : m_session->undoableCompaction());
}

void ChatPanel::onTurnStarted(const QString &text)
{
    m_runKind = RunKind::Turn;
    m_turnPrompt = text;
    m_model->dropRetryOffer();
    m_model->addUserMessage(text);
    m_view->scrollToBottom();
    m_toolsRunning = 0;
    m_spinner->start();
    setBusy(true);
}

void ChatPanel::onStreamEvent(const StreamEvent &event)
{
    m_model->handleStreamEvent(event);
    m_spinner->noteActivity();
    switch (event.type) {
    case StreamEvent::Type::ToolStart:
        ++m_toolsRunning;
        m_spinner->setRetrying(0);
        updateProviderWait();
        break;
    case StreamEvent::Type::ToolEnd:
        m_toolsRunning = std::max(0, m_toolsRunning - 1);
        updateProviderWait();
        break;
    case StreamEvent::Type::Retry:
        m_spinner->setRetrying(event.attempt);
        break;
    case StreamEvent::Type::Chunk:
    case StreamEvent::Type::ReasoningChunk:
        m_spinner->setRetrying(0);
        break;
    case StreamEvent::Type::Usage:
        Q_EMIT metricsChanged();
        break;
    case StreamEvent::Type::CompactionSliced:
        // Issue 16: the earlier parts of a long manual compaction are summarised; the last streams now.
        if (event.autoCompaction)
            m_manualCompactionHow = event.autoCompaction->strategy.describe();
        Q_EMIT metricsChanged();
        break;
    default:
        break;
    }
}

void ChatPanel::onTurnFinished(AgentSession::TurnOutcome outcome, const QString &error)
{
    m_model->flush();
    // Nothing is reported after a cancel, so a tool that was running ends here.
    m_model->endRunningTools();
    if (m_runKind == RunKind::Turn) {
        switch (outcome) {
        case AgentSession::TurnOutcome::Done:
            break;
        case AgentSession::TurnOutcome::Cancelled:
            m_model->addInterrupted();
            break;
        case AgentSession::TurnOutcome::Error:
            // The provider failed (retries used up, a cut connection): the same words can go again. An
            // incomplete turn did part of its work, carried to the next request; the same prompt would
            // start the task over, so it offers nothing.
            m_model->addTurnError(error.isEmpty() ? tr("The request failed.") : error, m_turnPrompt);
            break;
        case AgentSession::TurnOutcome::Incomplete:
            // Says what happens next: the turn's tool work is replayed before the next message.
            m_model->addLine(ChatItem::Kind::Error,
                             tr("%1 (the work done so far goes along with your next message)")
                                 .arg(error.isEmpty() ? tr("The request failed.") : error));
            break;
        }
    }
    m_model->seal();
    m_runKind = RunKind::None;
    m_spinner->stop();
    setBusy(false);
    Q_EMIT metricsChanged();
    scheduleDrain();
}

void ChatPanel::onAsideStarted(const QString &question)
{
    m_asideRow = m_model->addAside(question);
    m_view->scrollToBottom();
}

void ChatPanel::onAsideFinished(const QString &error, bool cancelled)
{
    m_model->finishAside(m_asideRow, error, cancelled);
    m_asideRow = 0;
}

void ChatPanel::onShellCommandStarted(const QString &command)
{
    m_runKind = RunKind::Shell;
    m_model->dropRetryOffer();
    m_model->addUserMessage(QLatin1Char('!') + command);
    m_view->scrollToBottom();
    m_toolsRunning = 0;
    m_spinner->start();
    setBusy(true);
}

void ChatPanel::onShellCommandFinished(bool cancelled)
{
    // The card says how it ended ("Command cancelled." after Esc or Stop): no turn was interrupted.
    Q_UNUSED(cancelled)
    m_model->endRunningTools();
    // Said every time: the row above looks like a prompt, and the model saw nothing of it.
    m_model->addLine(
        ChatItem::Kind::Status,
        tr("Ran in the shell: the model does not see it (Pin Tool Result in the card's menu gives "
           "it the output)."));
    m_model->seal();
    m_runKind = RunKind::None;
    m_spinner->stop();
    setBusy(false);
    scheduleDrain();
}

void ChatPanel::onCompactionStarted(AgentSession::CompactionMode mode)
{
    if (mode == AgentSession::CompactionMode::Manual) {
        m_runKind = RunKind::ManualCompaction;
        m_manualCompactionHow.clear();
        m_model->seal();
        m_model->addLine(ChatItem::Kind::Status, ChatModel::compactionHeadingText());
        m_summaryFirstRow = m_model->rowCount();
        m_view->scrollToBottom(); // asked for like a message: its summary streams in view
        m_spinner->start();
        setBusy(true);
    }
    // S31, S49: the same spinner, its text becomes "Compacting...".
    m_spinner->setCompacting(true);
}

void ChatPanel::onCompactionReviewRequested(const QString &summary, const MessageList &replaced)
{
    m_model->flush();
    m_model->seal();
    m_spinner->stop(); // the session stays busy: nothing else starts while the person reads
    auto *dialog = new CompactionReviewDialog(summary, replaced, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    // Issue 16: the chat shows what is applied, as the session replays it: the edited summary in place of
    // the streamed one, nothing of a summary regenerated or cancelled.
    connect(dialog, &CompactionReviewDialog::summaryAccepted, this, [this, dialog](const QString &text) {
        const bool edited = dialog->isEdited();
        if (edited) {
            const QString how = ChatModel::editedSummaryNote();
            m_manualCompactionHow =
                m_manualCompactionHow.isEmpty() ? how : m_manualCompactionHow + QStringLiteral("; ") + how;
        }
        if (const Result<void> accepted = m_session->acceptCompaction(text); !accepted) {
            m_model->addLine(ChatItem::Kind::Error, accepted.error());
            m_session->cancelCompactionReview();
        } else if (edited) {
            m_model->replaceTrailingText(m_summaryFirstRow, text.trimmed());
        }
    });
    connect(dialog, &CompactionReviewDialog::regenerateRequested, this, [this](const QString &focus) {
        // The heading goes with the summary: the new attempt streams under a heading of its own.
        removeSummaryRows();
        if (const Result<void> again = m_session->regenerateCompaction(focus); !again) {
            m_model->addLine(ChatItem::Kind::Error, again.error());
            m_session->cancelCompactionReview();
        }
    });
    connect(dialog, &CompactionReviewDialog::reviewCancelled, this, [this] {
        removeSummaryRows();
        m_session->cancelCompactionReview();
    });
    dialog->open();
}

QString ChatPanel::compactionNotAppliedText()
{
    return tr("The conversation is unchanged; summary text above was not applied.");
}

QString ChatPanel::compactionUnchangedText()
{
    return tr("The conversation is unchanged.");
}

void ChatPanel::removeSummaryRows()
{
    const int heading = m_summaryFirstRow - 1;
    const bool hasHeading = heading >= 0 && heading < m_model->rowCount() &&
                            m_model->item(heading).kind == ChatItem::Kind::Status &&
                            m_model->item(heading).text == ChatModel::compactionHeadingText();
    m_model->removeRowsFrom(hasHeading ? heading : m_summaryFirstRow);
    m_summaryFirstRow = m_model->rowCount() + 1; // nothing of this attempt is shown any more
}

bool ChatPanel::summaryTextShown() const
{
    for (int row = std::max(m_summaryFirstRow, 0); row < m_model->rowCount(); ++row) {
        const ChatItem::Kind kind = m_model->item(row).kind;
        if (kind == ChatItem::Kind::AssistantText || kind == ChatItem::Kind::Reasoning)
            return true;
    }
    return false;
}

void ChatPanel::onCompactionFinished(AgentSession::CompactionMode mode, bool applied, const QString &message)
{
    if (mode == AgentSession::CompactionMode::Manual) {
        m_model->flush();
        if (applied) {
            m_model->addLine(ChatItem::Kind::Status,
                             ChatModel::compactionRowText(false, m_manualCompactionHow));
            m_model->markCompaction(m_session->undoableCompaction());
            Q_EMIT undoableCompactionChanged();
        } else {
            // The summary streamed visibly (reference 4.2); what came of it before the cancel or failure
            // stays above this row, which says that it was not applied. An attempt that shows nothing
            // (cancelled before any text, or a reviewed summary taken away on Cancel) leaves no empty heading
            // behind, and the row does not speak of text above that is not there.
            if (m_summaryFirstRow >= m_model->rowCount())
                removeSummaryRows();
            const QString unchanged =
                summaryTextShown() ? compactionNotAppliedText() : compactionUnchangedText();
            if (message.startsWith(QLatin1String("Compaction failed")))
                m_model->addLine(ChatItem::Kind::Error, message + QLatin1Char(' ') + unchanged);
            else
                m_model->addLine(ChatItem::Kind::Status,
                                 (message.isEmpty() ? tr("Compaction cancelled.") : message) +
                                     QLatin1Char(' ') + unchanged);
        }
        m_model->seal();
        m_spinner->stop();
        if (!m_session->isBusy()) {
            m_runKind = RunKind::None;
            setBusy(false);
        }
        Q_EMIT metricsChanged();
        scheduleDrain(); // S32
        return;
    }
    if (applied) {
        // S53: "Context compacted automatically" is shown, on a row after the checkpoint that stays (the
        // spinner's notification fades), with how an over-budget one fit (issue 16). Every applied one has
        // its row, also the second and later of one tool loop, and the row carries its Undo action (issue
        // 16).
        m_model->addLine(ChatItem::Kind::Status, ChatModel::compactionRowText(true, message));
        m_model->markCompaction(m_session->undoableCompaction());
        Q_EMIT undoableCompactionChanged();
    }
    // S52: cancelled or failed automatic compaction: the normal spinner text returns, the turn goes on.
    m_spinner->setCompacting(false);
}

void ChatPanel::onAutoCompactionCheckpointed()
{
    // S53: the output so far is sealed where it is (shown once); later text starts a new row.
    m_model->seal();
    m_spinner->setCompacting(false);
    m_spinner->showNotification(tr("Context compacted automatically."));
    Q_EMIT metricsChanged();
}

void ChatPanel::setZoomPercent(int percent)
{
    percent = std::clamp(percent, int(Settings::MinZoomPercent), int(Settings::MaxZoomPercent));
    m_zoomInAction->setEnabled(percent < Settings::MaxZoomPercent);
    m_zoomOutAction->setEnabled(percent > Settings::MinZoomPercent);
    if (percent == m_zoomPercent)
        return;
    m_zoomPercent = percent;
    const auto scaled = [percent](QFont font) {
        if (font.pointSizeF() > 0)
            font.setPointSizeF(font.pointSizeF() * percent / 100.0);
        else
            font.setPixelSize(qMax(6, font.pixelSize() * percent / 100));
        return font;
    };
    // The view lays its rows out again in the new size (ChatView drops its documents on a font change).
    m_view->setFont(scaled(m_baseFont));
    m_input->setFont(scaled(m_inputBaseFont));
    Q_EMIT zoomChanged(percent);
}

void ChatPanel::zoomTo(int percent)
{
    setZoomPercent(percent);
    m_spinner->showNotification(tr("Zoom %1%").arg(m_zoomPercent));
}

void ChatPanel::findInConversation()
{
    const QString selected = m_view->selectedText();
    const bool shortSelection =
        !selected.isEmpty() && selected.size() <= 200 && !selected.contains(QLatin1Char('\n'));
    if (!m_findBar->isVisible())
        m_search.prepare(*m_model); // on a worker while the person types
    m_findBar->open(shortSelection ? selected : QString());
}

void ChatPanel::showSearchHit(int row, const QString &searchWords)
{
    QStringList words = searchWords.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
    if (words.isEmpty())
        return;
    if (!m_findBar->isVisible())
        m_search.prepare(*m_model);
    // The words as the person typed them where the conversation has them so ("Host seen" highlighted only
    // "Host" when tried); else the longest of them, since the session search matches words apart.
    QString needle = words.join(QLatin1Char(' '));
    if (words.size() == 1 ||
        m_search.find(*m_model, needle, [this](int shown) { return !m_view->isRowHidden(shown); })
            .isEmpty()) {
        std::stable_sort(words.begin(), words.end(),
                         [](const QString &a, const QString &b) { return a.size() > b.size(); });
        needle = words.first();
    }
    m_findStartRow = row;
    m_findBar->open(needle, FindBar::Focus::Leave);
}

void ChatPanel::runSearch(const QString &text)
{
    m_findText = text;
    m_matches = m_search.find(*m_model, text, [this](int row) { return !m_view->isRowHidden(row); });
    m_matchesStale = false;
    m_currentMatch = -1;
    const int startRow = std::exchange(m_findStartRow, -1);
    if (!m_matches.isEmpty()) {
        // Nearest to what the person reads: the first match from the top of the view down, else the last
        // one above it.
        const QModelIndex top = m_view->indexAt(QPoint(0, 0));
        const int topRow = startRow >= 0 ? startRow : top.isValid() ? top.row() : 0;
        m_currentMatch = int(m_matches.size()) - 1;
        for (int i = 0; i < m_matches.size(); ++i) {
            if (m_matches.at(i).row >= topRow) {
                m_currentMatch = i;
                break;
            }
        }
    }
    showCurrentMatch();
}

void ChatPanel::refreshMatches()
{
    m_findRefresh.stop();
    const int was = m_currentMatch;
    const ConversationSearch::Match current = m_matches.value(m_currentMatch);
    m_matches = m_search.find(*m_model, m_findText, [this](int row) { return !m_view->isRowHidden(row); });
    m_matchesStale = false;
    // The match shown stays the current one; when it is gone, none is (the next Enter shows the first).
    m_currentMatch = was >= 0 ? int(m_matches.indexOf(current)) : -1;
    m_findBar->setResult(m_currentMatch, int(m_matches.size()),
                         m_matches.size() >= ConversationSearch::MaxMatches);
}

void ChatPanel::findNext()
{
    stepMatch(1);
}

void ChatPanel::findPrevious()
{
    stepMatch(-1);
}

void ChatPanel::stepMatch(int step)
{
    if (!m_findBar->isVisible() || m_findText.isEmpty()) {
        findInConversation();
        return;
    }
    if (m_matchesStale)
        refreshMatches();
    if (m_matches.isEmpty()) {
        showCurrentMatch();
        return;
    }
    const int count = int(m_matches.size());
    if (m_currentMatch < 0) // none shown yet: the first one forwards, the last one backwards
        m_currentMatch = step > 0 ? 0 : count - 1;
    else
        m_currentMatch = ((m_currentMatch + step) % count + count) % count;
    showCurrentMatch();
}

void ChatPanel::showCurrentMatch()
{
    const bool capped = m_matches.size() >= ConversationSearch::MaxMatches;
    if (m_currentMatch < 0 || m_currentMatch >= m_matches.size()) {
        m_view->clearTextSelection();
        m_findBar->setResult(-1, int(m_matches.size()), capped);
        return;
    }
    const ConversationSearch::Match match = m_matches.at(m_currentMatch);
    m_view->showMatch(match.row, m_findText, match.occurrence);
    m_findBar->setResult(m_currentMatch, int(m_matches.size()), capped);
}

void ChatPanel::updateProviderWait()
{
    m_spinner->setWaitingForProvider(m_toolsRunning == 0 && m_model->pendingPermissionId() == 0);
}

void ChatPanel::onPermissionRequested(const PermissionRequest &request)
{
    m_model->addPermission(request);
    updateProviderWait();
    if (m_input->toPlainText().isEmpty())
        m_view->focusPendingCard();
}

void ChatPanel::onPermissionDecided(quint64 requestId, PermissionDecision decision)
{
    const QString outcome = ChatModel::permissionOutcome(decision);
    m_decisions.insert(requestId, outcome);
    m_model->settlePermission(requestId, outcome,
                              decision == PermissionDecision::Allow ||
                                  decision == PermissionDecision::AllowForSession);
    m_session->answerPermission(requestId, decision);
    m_input->setFocus(Qt::OtherFocusReason);
}

void ChatPanel::onQuestionAnswered(quint64 questionId, const UserAnswer &answer)
{
    m_model->settleQuestion(questionId, ChatModel::questionOutcome(answer),
                            answer.cancelled ? QStringList() : answer.answers);
    m_session->answerQuestion(questionId, answer);
    m_input->setFocus(Qt::OtherFocusReason);
}

void ChatPanel::escape()
{
    // 1. A running compaction: manual, or only the automatic child (S26, S50).
    if (m_session->compactionMode() != AgentSession::CompactionMode::None) {
        m_session->cancelCompaction();
        return;
    }
    // 2. A pending permission is denied; a pending question is cancelled.
    if (const quint64 pending = m_model->pendingPermissionId()) {
        onPermissionDecided(pending, PermissionDecision::Deny);
        return;
    }
    if (cancelPendingQuestion())
        return;
    // 3. A side question (/btw), then the turn.
    if (m_session->cancelAside())
        return;
    if (m_session->isBusy()) {
        m_session->interrupt();
        return;
    }
    if (!m_queue.isEmpty()) {
        m_queue.clear();
        updateQueueView();
        notify(tr("Queue cleared"));
        return;
    }
    // 4. Nothing running: a find bar opened by a session search hit (it leaves the focus in the input).
    if (m_findBar->isVisible()) {
        m_findBar->close();
        return;
    }
    // 5. An MCP sign-in waiting for the browser.
    const QString signingIn = m_session->mcpSignInServer();
    if (m_session->cancelMcpSignIn())
        notify(tr("Sign-in to MCP server %1 cancelled.").arg(signingIn));
}

bool ChatPanel::cancelPendingQuestion()
{
    for (int row = m_model->rowCount() - 1; row >= 0; --row) {
        const ChatItem &item = m_model->item(row);
        if (item.kind == ChatItem::Kind::Question && !item.settled) {
            onQuestionAnswered(item.questionId, UserAnswer::cancel());
            return true;
        }
    }
    return false;
}

void ChatPanel::interruptFromKeyboard()
{
    // Ctrl+C cancels a question of the agent first: the model is told it was cancelled and the turn goes
    // on; the next Ctrl+C stops it (reference 6.3, Ctrl+C's order). The Stop button stops the turn.
    if (!cancelPendingQuestion())
        interrupt();
}

void ChatPanel::interrupt()
{
    // A side question first, as Esc does (reference 6.3), also during a manual compaction.
    if (m_session->cancelAside())
        return;
    // Ignored during a manual compaction (reference 4.2); during an automatic one it stops the parent (S51).
    if (m_session->compactionMode() == AgentSession::CompactionMode::Manual)
        return;
    if (m_session->isBusy()) {
        m_session->interrupt();
        return;
    }
    if (!m_queue.isEmpty()) {
        m_queue.clear();
        updateQueueView();
        notify(tr("Queue cleared"));
        return;
    }
    m_input->clear();
}

void ChatPanel::submitInput(const QString &text)
{
    if (text.trimmed().isEmpty())
        return;
    if (SlashCommands::looksLikeCommand(text)) {
        runCommand(text);
        return;
    }
    if (text.startsWith(QLatin1Char('!'))) {
        // `!command` runs in the shell for the person (reference 6.1); not while anything runs, and never
        // queued: it would run later, on whatever the turn left behind.
        const Result<void> ran = m_session->runShellCommand(text.mid(1).trimmed());
        if (!ran) {
            notify(ran.error());
            if (m_input->toPlainText().isEmpty())
                m_input->setPlainText(text); // keep what was typed
        }
        return;
    }
    if (m_session->isBusy()) {
        enqueue(text);
        return;
    }
    const Result<void> result = m_session->submit(text);
    if (!result) {
        m_model->addLine(ChatItem::Kind::Error, result.error());
        m_input->setPlainText(text);
    }
}

void ChatPanel::enqueue(const QString &text)
{
    if (m_queue.size() >= MaxQueue) {
        notify(tr("Queue is full"));
        if (m_input->toPlainText().isEmpty())
            m_input->setPlainText(text); // keep what was typed
        return;
    }
    m_queue.append(text);
    updateQueueView();
}

void ChatPanel::removeQueued(int index)
{
    if (index < 0 || index >= m_queue.size())
        return;
    m_queue.removeAt(index);
    updateQueueView();
}

void ChatPanel::updateQueueView()
{
    m_chips->setItems(m_queue);
}

void ChatPanel::scheduleDrain()
{
    if (m_drainScheduled)
        return;
    m_drainScheduled = true;
    QTimer::singleShot(0, this, [this] {
        m_drainScheduled = false;
        drainOne();
    });
}

void ChatPanel::drainOne()
{
    if (m_queue.isEmpty() || m_session->isBusy())
        return;
    const QString text = m_queue.takeFirst();
    updateQueueView();
    if (SlashCommands::looksLikeCommand(text)) {
        reviewConversation(text); // the only command that queues
        return;
    }
    const Result<void> result = m_session->submit(text);
    if (!result)
        m_model->addLine(ChatItem::Kind::Error, result.error());
}

void ChatPanel::reviewConversation(const QString &command)
{
    const auto parsed = SlashCommands::parse(command);
    const QStringList words =
        parsed ? parsed->argument.split(QLatin1Char(' '), Qt::SkipEmptyParts) : QStringList();
    if (!words.isEmpty() && words.constFirst() == QLatin1String("model")) {
        chooseReviewerModel(words.mid(1));
        return;
    }
    // Reviews what the running turn will have done: queued behind it (reference 6.2).
    if (m_session->isBusy()) {
        enqueue(command.trimmed());
        return;
    }
    if (const Result<void> started = m_session->reviewConversation(parsed ? parsed->argument : QString());
        !started)
        notify(started.error());
}

void ChatPanel::chooseReviewerModel(const QStringList &words)
{
    const QString usage = tr("`/adversary model <provider>/<model>` picks the model that reviews, "
                             "`/adversary model default` goes back to this conversation's model.");
    if (words.isEmpty()) {
        const QString current = m_session->reviewerModel();
        m_model->addLine(ChatItem::Kind::Info,
                         (current.isEmpty() ? tr("Reviews run on this conversation's model.")
                                            : tr("Reviews run on `%1`.").arg(current)) +
                             QStringLiteral("\n\n") + usage);
        m_view->scrollToBottom();
        return;
    }
    if (words.size() == 1 && words.constFirst() == QLatin1String("default")) {
        m_session->setReviewerModel(QString(), QString());
        Q_EMIT reviewerModelChanged(QString(), QString());
        notify(tr("✓ Reviews run on this conversation's model"));
        return;
    }
    const qsizetype slash = words.size() == 1 ? words.constFirst().indexOf(QLatin1Char('/')) : -1;
    if (slash <= 0 || slash == words.constFirst().size() - 1) {
        notify(tr("Usage: /adversary model <provider>/<model> | default"));
        return;
    }
    const QString provider = words.constFirst().left(slash);
    const QString model = words.constFirst().mid(slash + 1);
    m_session->setReviewerModel(provider, model);
    Q_EMIT reviewerModelChanged(provider, model);
    notify(tr("✓ Reviews run on %1/%2").arg(provider, model));
}

void ChatPanel::compact(const QString &focus)
{
    if (m_session->isBusy()) {
        notify(tr("Operation not permitted"));
        return;
    }
    // A notice, not a row: a row would belong to no session and stay above the conversation that comes next.
    if (m_session->messages().isEmpty()) {
        notify(tr("Nothing to compact yet: the conversation is empty."));
        return;
    }
    const Result<void> result = m_session->compact(focus);
    if (!result)
        m_model->addLine(ChatItem::Kind::Error, result.error());
}

void ChatPanel::newSession()
{
    if (m_session->isBusy()) {
        notify(tr("Operation not permitted"));
        return;
    }
    m_session->cancelAside(); // its row goes with the conversation
    m_session->newSession();
    ++m_historyGeneration; // rows of an opened session still being built belong to the conversation that went
    m_preview.reset();
    m_model->clear();
    if (m_completingHistory)
        finishOpening();
    if (m_findBar->isVisible())
        m_findBar->close(); // nothing to find in an empty conversation, and the search was the other one's
    m_queue.clear();
    updateQueueView();
    Q_EMIT metricsChanged();
}

void ChatPanel::setMode(AgentMode mode)
{
    if (m_session->mode() != mode)
        m_session->setMode(mode);
    applyModeStyle();
    Q_EMIT modeChanged(mode);
}

void ChatPanel::applyModeStyle()
{
    // yolo: no prompts; the input turns red so nobody forgets (reference 2.3).
    if (m_session->mode() == AgentMode::Yolo) {
        const QColor red = ChatColors::error(palette());
        m_inputFrame->setStyleSheet(
            QStringLiteral("#inputFrame { border-top: 2px solid %1; background: rgba(%2,%3,%4,24); }")
                .arg(red.name())
                .arg(red.red())
                .arg(red.green())
                .arg(red.blue()));
    } else
        m_inputFrame->setStyleSheet(QString());
}

void ChatPanel::setShowThinking(bool show)
{
    m_showThinking = show;
    m_view->setShowThinking(show);
    Q_EMIT showThinkingChanged(show); // the window keeps it in settings.json
}

void ChatPanel::undoCompaction(quint64 appliedSeq)
{
    if (m_session->isBusy())
        return;
    m_session->undoCompaction(appliedSeq);
    setBusy(m_session->isBusy());
}

void ChatPanel::onCompactionUndone(quint64 appliedSeq, qint64 estimatedTokens, qint64 inputBudget)
{
    m_model->markCompactionUndone(appliedSeq);
    m_model->addLine(ChatItem::Kind::Status, ChatModel::compactionUndoneText());
    m_view->scrollToBottom();
    setBusy(m_session->isBusy());
    Q_EMIT metricsChanged();
    Q_EMIT undoableCompactionChanged();
    scheduleDrain(); // prompts typed meanwhile go on from the restored history
    if (estimatedTokens <= inputBudget)
        return;
    // The restored history no longer fits: say so and offer to compact again, never silently.
    auto *box =
        new QMessageBox(QMessageBox::Warning, tr("Undo Compaction"),
                        tr("The restored conversation is about %1 tokens, more than the model's input "
                           "budget of %2 tokens. The next request will fail unless it is compacted "
                           "again.")
                            .arg(QLocale().toString(estimatedTokens), QLocale().toString(inputBudget)),
                        QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("undoNoLongerFitsDialog"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    QPushButton *again = box->addButton(tr("Compact Again"), QMessageBox::AcceptRole);
    again->setObjectName(QStringLiteral("compactAgainButton"));
    box->addButton(tr("Keep As It Is"), QMessageBox::RejectRole);
    connect(again, &QPushButton::clicked, this, [this] { compact(); });
    box->open();
}

void ChatPanel::changeProjectPermissions(bool allow, const QString &usage, const QString &argument)
{
    const QStringList known = m_session->toolNames();
    const QStringList names =
        argument.split(QRegularExpression(QStringLiteral("[\\s,]+")), Qt::SkipEmptyParts);
    if (names.isEmpty()) {
        m_model->addLine(ChatItem::Kind::Status,
                         tr("Usage: %1\nAvailable tools: %2").arg(usage, known.join(QStringLiteral(", "))));
        return;
    }
    QStringList unknown;
    for (const QString &name : names) {
        if (!known.contains(name))
            unknown << name;
    }
    if (!unknown.isEmpty()) {
        m_model->addLine(ChatItem::Kind::Error,
                         tr("Unknown tool: %1. Available tools: %2")
                             .arg(unknown.join(QStringLiteral(", ")), known.join(QStringLiteral(", "))));
        return;
    }
    m_session->changeProjectPermissions(names, allow);
}

void ChatPanel::showContextDialog()
{
    auto *dialog = new ContextDialog(m_session->contextBreakdown(), m_session->compactionPolicy(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this,
            [this, dialog] { m_session->setCompactionPolicy(dialog->policy()); });
    dialog->open();
}

void ChatPanel::runCommand(const QString &text)
{
    const auto parsed = SlashCommands::parse(text);
    if (!parsed) {
        if (!activateSkill(text))
            notify(tr("No such command or skill: %1").arg(text.trimmed().section(QLatin1Char(' '), 0, 0)));
        return;
    }
    const SlashCommands::Command &command = SlashCommands::command(parsed->id);
    if (m_session->isBusy() && !command.runsWhileBusy) {
        notify(tr("Operation not permitted"));
        return;
    }
    const QString argument = parsed->argument;
    switch (parsed->id) {
    case SlashCommands::Id::Compact:
        compact(argument);
        break;
    case SlashCommands::Id::Context:
        showContextDialog();
        break;
    case SlashCommands::Id::Pin: {
        if (argument.isEmpty()) {
            notify(tr("Usage: %1").arg(command.usage));
            break;
        }
        Pin note;
        note.kind = Pin::Kind::Note;
        note.text = argument;
        pin(note);
        break;
    }
    case SlashCommands::Id::Pins:
        showPinsDialog();
        break;
    case SlashCommands::Id::AllowPermission:
    case SlashCommands::Id::ResetPermission:
        changeProjectPermissions(parsed->id == SlashCommands::Id::AllowPermission, command.usage, argument);
        break;
    case SlashCommands::Id::Clear:
    case SlashCommands::Id::New:
        newSession();
        break;
    case SlashCommands::Id::Sessions:
        Q_EMIT sessionsRequested();
        break;
    case SlashCommands::Id::Resume:
        // Listing and reading the session run off the GUI thread; the spinner says so meanwhile.
        m_session->openSessionAsync(QString());
        break;
    case SlashCommands::Id::Mode: {
        if (argument.isEmpty()) {
            m_model->addLine(ChatItem::Kind::Status, tr("Mode: %1").arg(agentModeName(m_session->mode())));
            break;
        }
        const auto mode = agentModeFromName(argument);
        if (!mode) {
            m_model->addLine(ChatItem::Kind::Error, tr("Usage: /mode plan|build|yolo"));
            break;
        }
        setMode(*mode);
        m_model->addLine(ChatItem::Kind::Status, tr("✓ Mode: %1").arg(agentModeName(*mode)));
        break;
    }
    case SlashCommands::Id::Model:
        if (argument.isEmpty())
            Q_EMIT settingsRequested();
        else
            Q_EMIT modelRequested(argument);
        break;
    case SlashCommands::Id::Thinking:
        if (argument.isEmpty()) {
            const QString effort = m_session->clientConfig().thinkingEffort;
            m_model->addLine(ChatItem::Kind::Status,
                             tr("Thinking effort: %1").arg(effort.isEmpty() ? tr("default") : effort));
        } else {
            Q_EMIT thinkingRequested(argument);
        }
        break;
    case SlashCommands::Id::ShowThinking: {
        const QString value = argument.toLower();
        if (value.isEmpty())
            setShowThinking(!m_showThinking);
        else if (value == QLatin1String("on"))
            setShowThinking(true);
        else if (value == QLatin1String("off"))
            setShowThinking(false);
        else {
            m_model->addLine(ChatItem::Kind::Error, tr("Usage: /show-thinking [on|off]"));
            break;
        }
        m_model->addLine(ChatItem::Kind::Status,
                         m_showThinking ? tr("✓ Reasoning is shown.") : tr("✓ Reasoning is hidden."));
        break;
    }
    case SlashCommands::Id::ToolHistory: {
        const QString value = argument.toLower();
        if (value == QLatin1String("full") || value == QLatin1String("none")) {
            m_session->setToolHistoryFull(value == QLatin1String("full"));
            Q_EMIT toolHistoryChanged(m_session->toolHistoryFull()); // kept in settings.json
        } else if (!value.isEmpty()) {
            m_model->addLine(ChatItem::Kind::Error, tr("Usage: /tool-history [full|none]"));
            break;
        }
        m_model->addLine(
            ChatItem::Kind::Status,
            tr("Tool history: %1")
                .arg(m_session->toolHistoryFull() ? QStringLiteral("full") : QStringLiteral("none")));
        break;
    }
    case SlashCommands::Id::Btw:
        if (const Result<void> asked = m_session->askAside(argument); !asked)
            notify(asked.error());
        break;
    case SlashCommands::Id::Adversary:
        reviewConversation(text);
        break;
    case SlashCommands::Id::Usage: {
        // The ledger can hold years of requests: summed on a worker.
        const QString path = m_session->usageLedgerPath();
        whenFinished(QtConcurrent::run([path] {
                         UsageLedger::flush(); // what this window recorded last is counted too
                         return UsageLedger::markdown(
                             UsageLedger::summarize(path, QDateTime::currentDateTimeUtc()));
                     }),
                     this, [this](const QString &markdown) {
                         m_model->addLine(ChatItem::Kind::Info, markdown);
                         m_view->scrollToBottom();
                     });
        break;
    }
    case SlashCommands::Id::Memory:
        showMemory(argument, command.usage);
        break;
    case SlashCommands::Id::EmptyQueue:
        notify(m_queue.isEmpty() ? tr("Queue is empty") : tr("Queue cleared"));
        m_queue.clear();
        updateQueueView();
        break;
    case SlashCommands::Id::Logout:
        Q_EMIT logoutRequested(); // the window knows the provider and its sign-in
        break;
    case SlashCommands::Id::Skills:
        runSkillsCommand(argument, command.usage);
        break;
    case SlashCommands::Id::Subagents:
        if (!argument.isEmpty() && argument.toLower() != QLatin1String("list")) {
            notify(tr("Usage: %1").arg(command.usage));
            break;
        }
        // Read the folders again first: a profile written since the last turn is listed too.
        m_subagentsReport = true;
        m_session->reloadCatalogs();
        break;
    case SlashCommands::Id::Mcp:
        runMcpCommand(argument, command.usage);
        break;
    case SlashCommands::Id::Cleanup:
        Q_EMIT cleanupRequested();
        break;
    case SlashCommands::Id::Skill: // never parsed: skills are looked up in activateSkill
        break;
    case SlashCommands::Id::Exit:
        Q_EMIT quitRequested(); // the window asks first when something runs
        break;
    case SlashCommands::Id::Help:
        m_model->addLine(ChatItem::Kind::Info, SlashCommands::helpMarkdown());
        break;
    }
}

void ChatPanel::showMemory(const QString &argument, const QString &usage)
{
    const QStringList words = argument.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    std::optional<MemoryReport::Scope> scope;
    if (words.size() == 2 && words.at(0).toLower() == QLatin1String("show")) {
        const QString which = words.at(1).toLower();
        if (which == QLatin1String("global"))
            scope = MemoryReport::Scope::Global;
        else if (which == QLatin1String("project"))
            scope = MemoryReport::Scope::Project;
    }
    if (!words.isEmpty() && !scope) {
        notify(tr("Usage: %1").arg(usage));
        return;
    }
    // Read on a worker: a memory file can be on a slow or hung network folder.
    const QString global = m_session->globalMemoryPath();
    const QString project = m_session->projectMemoryPath();
    whenFinished(QtConcurrent::run([scope, global, project] {
                     if (!scope)
                         return MemoryReport::list(global, project);
                     return MemoryReport::show(*scope,
                                               *scope == MemoryReport::Scope::Global ? global : project);
                 }),
                 this, [this](const QString &markdown) {
                     m_model->addLine(ChatItem::Kind::Info, markdown);
                     m_view->scrollToBottom();
                 });
}

void ChatPanel::runMcpCommand(const QString &argument, const QString &usage)
{
    const QString verb = argument.section(QLatin1Char(' '), 0, 0).toLower();
    const QString server = argument.section(QLatin1Char(' '), 1).trimmed();
    if (argument.isEmpty() || (verb == QLatin1String("status") && server.isEmpty())) {
        // Read mcp/configs.json again first: a server added since is started and listed too.
        m_mcpReport = true;
        m_session->reloadCatalogs();
        return;
    }
    const bool connecting = verb == QLatin1String("connect");
    if ((!connecting && verb != QLatin1String("logout")) || server.isEmpty() ||
        server.contains(QLatin1Char(' '))) {
        notify(tr("Usage: %1").arg(usage));
        return;
    }
    if (!connecting) {
        if (!m_session->signOutMcp(server))
            notify(tr("No MCP server named %1 signs in with OAuth; /mcp lists the servers.").arg(server));
        return;
    }
    if (!m_session->reconnectMcp(server)) {
        notify(tr("No MCP server or tool is named %1; /mcp lists the servers.").arg(server));
        return;
    }
    m_mcpTableWhenSettled = true;
    notify(m_session->mcpSignInServer().isEmpty() ? tr("Connecting to MCP server %1...").arg(server)
                                                  : tr("Signing in to MCP server %1...").arg(server));
}

void ChatPanel::runSkillsCommand(const QString &argument, const QString &usage)
{
    const QStringList words = argument.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    const QString verb = words.isEmpty() ? QStringLiteral("list") : words.constFirst().toLower();
    if ((verb == QLatin1String("list") || verb == QLatin1String("status")) && words.size() <= 1) {
        m_model->addLine(ChatItem::Kind::Info,
                         m_session->skills().markdownTable(verb == QLatin1String("list")
                                                               ? SkillCatalog::View::List
                                                               : SkillCatalog::View::Status));
        m_view->scrollToBottom();
        return;
    }
    if (verb == QLatin1String("reload") && words.size() == 1) {
        m_skillsReport = SkillCatalog::View::List;
        m_session->reloadCatalogs();
        return;
    }
    if ((verb == QLatin1String("enable") || verb == QLatin1String("disable")) && words.size() == 2) {
        const bool enable = verb == QLatin1String("enable");
        const QString name = words.at(1);
        if (const Result<void> set = m_session->setSkillEnabled(name, enable); !set) {
            notify(set.error());
            return;
        }
        m_skillsNotice = enable ? tr("✓ Enabled: %1").arg(name) : tr("✓ Disabled: %1").arg(name);
        return;
    }
    notify(tr("Usage: %1").arg(usage));
}

bool ChatPanel::activateSkill(const QString &text)
{
    const std::optional<Result<QString>> activation = m_session->skillActivation(text);
    if (!activation)
        return false;
    if (!*activation) {
        notify(activation->error());
        return true;
    }
    if (m_session->isBusy()) {
        enqueue(**activation); // like a prompt (reference 6.2)
        return true;
    }
    if (const Result<void> sent = m_session->submit(**activation); !sent) {
        m_model->addLine(ChatItem::Kind::Error, sent.error());
        m_input->setPlainText(text);
    }
    return true;
}

void ChatPanel::onSkillsChanged()
{
    QList<SlashCommands::Command> commands = SlashCommands::all();
    for (const SkillCatalog::Skill &skill : m_session->skills().skills()) {
        // A built-in command of the same name comes first; a disabled skill is not offered.
        if (skill.enabled && !SlashCommands::parse(QLatin1Char('/') + skill.name))
            commands.append(SlashCommands::skillCommand(skill.name, skill.description));
    }
    m_input->setCommands(commands);
    if (m_skillsReport) {
        m_model->addLine(ChatItem::Kind::Info, m_session->skills().markdownTable(*m_skillsReport));
        m_view->scrollToBottom();
        m_skillsReport.reset();
    }
    if (std::exchange(m_mcpReport, false)) {
        // Whether to show it again once settled, from the same snapshot as the table: a server that settles
        // after it was taken announces that (mcpStatusChanged) after this.
        bool starting = false;
        m_model->addLine(ChatItem::Kind::Info, m_session->mcpStatusMarkdown(&starting));
        m_view->scrollToBottom();
        m_mcpTableWhenSettled = starting;
    }
    if (std::exchange(m_subagentsReport, false)) {
        m_model->addLine(ChatItem::Kind::Info, m_session->subagents().markdownTable());
        m_view->scrollToBottom();
    }
    if (!m_skillsNotice.isEmpty())
        notify(std::exchange(m_skillsNotice, QString()));
}

} // namespace keen

#include "moc_chatpanel.cpp"
