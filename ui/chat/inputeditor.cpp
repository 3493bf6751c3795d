#include "chat/inputeditor.h"

#include "config/inputhistory.h"

#include <QAbstractItemView>
#include <QCompleter>
#include <QDir>
#include <QKeyEvent>
#include <QMimeData>
#include <QScrollBar>
#include <QStandardItemModel>
#include <QTextBlock>
#include <QUrl>
#include <QtMath>

namespace keen {

namespace {
constexpr int kMaxHistory = InputHistory::MaxEntries;
constexpr int kMaxFileSuggestions = 10;

// The local files of a drop or paste, or nothing when it holds anything else (a web link, text).
QStringList localFiles(const QMimeData *source)
{
    QStringList files;
    if (!source->hasUrls())
        return files;
    const QList<QUrl> urls = source->urls();
    for (const QUrl &url : urls) {
        if (!url.isLocalFile())
            return {};
        files.append(QDir::cleanPath(url.toLocalFile()));
    }
    return files;
}
} // namespace

InputEditor::InputEditor(QWidget *parent)
    : QPlainTextEdit(parent)
    , m_completer(new QCompleter(this))
    , m_completionModel(new QStandardItemModel(this))
{
    setObjectName(QStringLiteral("inputEditor"));
    setAccessibleName(tr("Prompt"));
    updatePlaceholder();
    setTabChangesFocus(true);
    setLineWrapMode(QPlainTextEdit::WidgetWidth);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);

    m_completer->setModel(m_completionModel);
    m_completer->setCompletionRole(Qt::UserRole);
    m_completer->setWidget(this);
    m_completer->setCompletionMode(QCompleter::PopupCompletion);
    m_completer->setCaseSensitivity(Qt::CaseInsensitive);
    m_completer->setMaxVisibleItems(kMaxFileSuggestions);
    m_completer->popup()->setObjectName(QStringLiteral("completionPopup"));
    connect(m_completer, qOverload<const QString &>(&QCompleter::activated), this,
            &InputEditor::insertCompletion);
    connect(this, &QPlainTextEdit::textChanged, this, &InputEditor::updateHeight);
    connect(this, &QPlainTextEdit::cursorPositionChanged, this, [this] {
        if (m_completer->popup()->isVisible())
            updateCompletion();
    });
    updateHeight();
}

InputEditor::~InputEditor() = default;

void InputEditor::setCommands(const QList<SlashCommands::Command> &commands)
{
    m_commands = commands;
}

void InputEditor::setFiles(const QStringList &files)
{
    m_files = files;
}

void InputEditor::setHistory(const QStringList &history)
{
    m_history = history;
    m_historyIndex = -1;
}

void InputEditor::addEarlierHistory(const QStringList &earlier)
{
    QStringList history = earlier;
    for (const QString &text : std::as_const(m_history)) {
        if (history.isEmpty() || history.constLast() != text)
            history.append(text);
    }
    setHistory(history.mid(qMax<qsizetype>(0, history.size() - kMaxHistory)));
}

void InputEditor::addToHistory(const QString &text)
{
    if (text.trimmed().isEmpty())
        return;
    const bool added = m_history.isEmpty() || m_history.constLast() != text;
    if (added)
        m_history.append(text);
    while (m_history.size() > kMaxHistory)
        m_history.removeFirst();
    m_historyIndex = -1;
    if (added)
        Q_EMIT historyAdded(text);
}

QSize InputEditor::sizeHint() const
{
    const int lines = qBound(1, int(document()->size().height()), MaxVisibleLines);
    const int height = lines * fontMetrics().lineSpacing() + 2 * int(document()->documentMargin()) +
                       contentsMargins().top() + contentsMargins().bottom() + 4;
    return {QPlainTextEdit::sizeHint().width(), height};
}

QSize InputEditor::minimumSizeHint() const
{
    return {100, fontMetrics().lineSpacing() + 2 * int(document()->documentMargin()) + 6};
}

void InputEditor::updateHeight()
{
    setFixedHeight(sizeHint().height());
}

void InputEditor::resizeEvent(QResizeEvent *event)
{
    QPlainTextEdit::resizeEvent(event);
    updatePlaceholder();
}

void InputEditor::updatePlaceholder()
{
    // Found when tried in a narrow window: the hint wrapped to a second line the one-line box cut in half.
    // Where the whole hint does not fit, the short one.
    const QString full = tr("Message Keen (Enter sends, Shift+Enter adds a line)");
    const int room = viewport()->width() - 2 * qCeil(document()->documentMargin());
    const QString text = fontMetrics().horizontalAdvance(full) <= room ? full : tr("Message Keen");
    if (placeholderText() != text)
        setPlaceholderText(text);
}

bool InputEditor::event(QEvent *event)
{
    if (event->type() == QEvent::FontChange)
        updatePlaceholder();
    if (event->type() == QEvent::ShortcutOverride) {
        auto *key = static_cast<QKeyEvent *>(event);
        if (key->key() == Qt::Key_Escape || key->matches(QKeySequence::Copy)) {
            event->accept();
            return true;
        }
    }
    return QPlainTextEdit::event(event);
}

bool InputEditor::focusNextPrevChild(bool next)
{
    // QWidget::event moves the focus on a Tab before keyPressEvent sees it, and the completer hands its
    // popup's keys to event(): without this, Tab on "@big" left the word as it was and the focus went on.
    if (m_completer->popup()->isVisible())
        return false;
    return QPlainTextEdit::focusNextPrevChild(next);
}

bool InputEditor::canInsertFromMimeData(const QMimeData *source) const
{
    return !localFiles(source).isEmpty() || QPlainTextEdit::canInsertFromMimeData(source);
}

void InputEditor::insertFromMimeData(const QMimeData *source)
{
    const QStringList files = localFiles(source);
    if (files.isEmpty()) {
        QPlainTextEdit::insertFromMimeData(source);
        return;
    }
    const QDir workspace(m_workspace);
    QStringList names;
    for (const QString &file : files) {
        const QString relative = workspace.relativeFilePath(file);
        const bool inside = !m_workspace.isEmpty() && relative != QLatin1String("..") &&
                            !relative.startsWith(QLatin1String("../")) && !QDir::isAbsolutePath(relative);
        QString name = inside ? relative : file;
        if (name.contains(QLatin1Char(' ')))
            name = QLatin1Char('"') + name + QLatin1Char('"');
        names.append(inside ? QLatin1Char('@') + name : name);
    }
    QTextCursor cursor = textCursor();
    const QString before = cursor.block().text().left(cursor.positionInBlock());
    const bool needsSpace = !before.isEmpty() && !before.back().isSpace();
    cursor.insertText((needsSpace ? QStringLiteral(" ") : QString()) + names.join(QLatin1Char(' ')) +
                      QLatin1Char(' '));
    setTextCursor(cursor);
}

void InputEditor::keyPressEvent(QKeyEvent *event)
{
    const bool popupVisible = m_completer->popup()->isVisible();
    if (popupVisible) {
        switch (event->key()) {
        case Qt::Key_Return:
        case Qt::Key_Enter:
        case Qt::Key_Tab: {
            const QModelIndex current = m_completer->popup()->currentIndex();
            const QString choice =
                current.isValid() ? current.data(Qt::UserRole).toString() : m_completer->currentCompletion();
            m_completer->popup()->hide();
            if (!choice.isEmpty()) {
                insertCompletion(choice);
                return;
            }
            if (event->key() == Qt::Key_Tab)
                return;
            break;
        }
        case Qt::Key_Escape:
            m_completer->popup()->hide();
            return;
        default:
            break;
        }
    }

    if (event->matches(QKeySequence::Copy)) {
        if (textCursor().hasSelection())
            copy();
        else
            Q_EMIT interruptRequested();
        return;
    }
    if (event->key() == Qt::Key_Escape) {
        Q_EMIT escapePressed();
        return;
    }
    if (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) {
        if (event->modifiers() & Qt::ShiftModifier) {
            textCursor().insertText(QStringLiteral("\n"));
            return;
        }
        if (event->modifiers() == Qt::NoModifier || event->modifiers() == Qt::KeypadModifier) {
            submit();
            return;
        }
    }
    if ((event->key() == Qt::Key_PageUp || event->key() == Qt::Key_PageDown) &&
        (event->modifiers() & ~Qt::KeypadModifier) == Qt::NoModifier) {
        Q_EMIT pageRequested(event->key() == Qt::Key_PageUp ? -1 : 1);
        return;
    }
    if (event->key() == Qt::Key_J && event->modifiers() == Qt::ControlModifier) {
        textCursor().insertText(QStringLiteral("\n"));
        return;
    }
    if ((event->key() == Qt::Key_Up || event->key() == Qt::Key_Down) &&
        event->modifiers() == Qt::NoModifier) {
        const QTextCursor cursor = textCursor();
        const QTextLayout *layout = cursor.block().layout();
        const int lineInBlock =
            layout ? layout->lineForTextPosition(cursor.positionInBlock()).lineNumber() : 0;
        const bool atTop = cursor.block() == document()->firstBlock() && lineInBlock <= 0;
        const bool atBottom =
            cursor.block() == document()->lastBlock() && (!layout || lineInBlock >= layout->lineCount() - 1);
        if (event->key() == Qt::Key_Up && atTop && recallHistory(-1))
            return;
        if (event->key() == Qt::Key_Down && atBottom && recallHistory(+1))
            return;
    }
    QPlainTextEdit::keyPressEvent(event);
    if (!event->text().isEmpty() || event->key() == Qt::Key_Backspace)
        updateCompletion();
}

void InputEditor::submit()
{
    const QString text = toPlainText();
    if (text.trimmed().isEmpty())
        return;
    addToHistory(text);
    m_draft.clear();
    clear();
    Q_EMIT submitted(text);
}

bool InputEditor::recallHistory(int direction)
{
    if (m_history.isEmpty())
        return false;
    int index = m_historyIndex;
    if (direction < 0) {
        if (index == -1) {
            m_draft = toPlainText();
            index = int(m_history.size()) - 1;
        } else if (index > 0) {
            --index;
        } else {
            return true; // oldest entry: stay
        }
    } else {
        if (index == -1)
            return false;
        ++index;
        if (index >= m_history.size())
            index = -1;
    }
    m_historyIndex = index;
    setPlainText(index == -1 ? m_draft : m_history.at(index));
    QTextCursor cursor = textCursor();
    cursor.movePosition(direction < 0 ? QTextCursor::End : QTextCursor::End);
    setTextCursor(cursor);
    return true;
}

void InputEditor::updateCompletion()
{
    const QTextCursor cursor = textCursor();
    const QString blockText = cursor.block().text();
    const int position = cursor.positionInBlock();
    // The token that ends at the cursor.
    int start = position;
    while (start > 0 && !blockText.at(start - 1).isSpace())
        --start;
    const QString token = blockText.mid(start, position - start);
    const bool firstToken =
        cursor.block() == document()->firstBlock() && blockText.left(start).trimmed().isEmpty();

    CompletionKind kind = CompletionKind::None;
    QString prefix;
    if (firstToken && token.startsWith(QLatin1Char('/'))) {
        kind = CompletionKind::Command;
        prefix = token;
    } else if (token.startsWith(QLatin1Char('@'))) {
        kind = CompletionKind::File;
        prefix = token.mid(1);
    }
    if (kind == CompletionKind::None) {
        m_completer->popup()->hide();
        m_completionKind = kind;
        return;
    }
    QStringList candidates;
    QStringList shown; // what each candidate's row reads, when it is not the candidate itself
    if (kind == CompletionKind::Command) {
        // A command with its arguments and what it does, so the list tells which one to pick.
        for (const SlashCommands::Command &command : std::as_const(m_commands)) {
            if (command.name.startsWith(prefix, Qt::CaseInsensitive)) {
                candidates << command.name;
                shown << command.usage + QStringLiteral("  —  ") + command.description;
            }
        }
    } else {
        // Prefix matches of the path or of its file name first, then anything containing the text. Runs on
        // every key over up to WorkspaceFileIndex::MaxFiles paths: views, no copies.
        QStringList contains;
        for (const QString &file : std::as_const(m_files)) {
            const QStringView fileName = QStringView(file).sliced(file.lastIndexOf(QLatin1Char('/')) + 1);
            if (file.startsWith(prefix, Qt::CaseInsensitive) ||
                fileName.startsWith(prefix, Qt::CaseInsensitive))
                candidates << file;
            else if (contains.size() < kMaxFileSuggestions && file.contains(prefix, Qt::CaseInsensitive))
                contains << file;
            if (candidates.size() >= kMaxFileSuggestions)
                break;
        }
        candidates += contains.mid(0, kMaxFileSuggestions - candidates.size());
    }
    m_completionKind = kind;
    m_tokenStart = int(cursor.block().position()) + start;
    if (candidates.isEmpty() || (candidates.size() == 1 && candidates.constFirst() == token)) {
        m_completer->popup()->hide();
        return;
    }
    m_completionModel->clear();
    for (qsizetype i = 0; i < candidates.size(); ++i) {
        auto *item = new QStandardItem(shown.value(i, candidates.at(i)));
        item->setData(candidates.at(i), Qt::UserRole);
        item->setToolTip(item->text());
        m_completionModel->appendRow(item);
    }
    m_completer->setCompletionPrefix(QString());
    QRect rect = cursorRect();
    // Wide enough for a command's description; the rest is elided (and in the tooltip).
    rect.setWidth(qMax(240, kind == CompletionKind::Command ? width() * 3 / 4 : width() / 2));
    m_completer->complete(rect);
    m_completer->popup()->setCurrentIndex(m_completer->completionModel()->index(0, 0));
}

void InputEditor::insertCompletion(const QString &completion)
{
    QTextCursor cursor = textCursor();
    const int end = cursor.position();
    cursor.setPosition(m_tokenStart);
    cursor.setPosition(end, QTextCursor::KeepAnchor);
    const QString replacement = (m_completionKind == CompletionKind::File ? QStringLiteral("@") : QString()) +
                                completion + QLatin1Char(' ');
    cursor.insertText(replacement);
    setTextCursor(cursor);
    m_completer->popup()->hide();
}

} // namespace keen

#include "moc_inputeditor.cpp"
