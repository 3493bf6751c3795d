// The prompt editor: Enter sends, Shift+Enter is a newline, history at the edges, completion, Ctrl+C and Esc.
#include "chat/inputeditor.h"
#include "chat/slashcommands.h"
#include "chat/workspacefileindex.h"

#include "testenvironment.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QClipboard>
#include <QCompleter>
#include <QDir>
#include <QFile>
#include <QMimeData>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

using namespace keen;

class TestInputEditor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void enterSendsShiftEnterBreaksTheLine();
    void theHintFitsTheBox();
    void whitespaceIsNotSent();
    void upAndDownRecallHistoryAtTheEdges();
    void slashCompletesCommands();
    void atCompletesFiles();
    void tabTakesTheCompletion();
    void atCompletesAFileDeepInABigFolder();
    void ctrlCCopiesSelectionElseAsksToInterrupt();
    void escapeIsReported();
    void droppedOrPastedFilesAreNamed();

private:
    test::TestEnvironment m_env;
};

void TestInputEditor::enterSendsShiftEnterBreaksTheLine()
{
    InputEditor editor;
    editor.show();
    QSignalSpy submitted(&editor, &InputEditor::submitted);
    QTest::keyClicks(&editor, QStringLiteral("first"));
    QTest::keyClick(&editor, Qt::Key_Return, Qt::ShiftModifier);
    QTest::keyClicks(&editor, QStringLiteral("second"));
    QCOMPARE(submitted.count(), 0);
    QCOMPARE(editor.toPlainText(), QStringLiteral("first\nsecond"));
    QTest::keyClick(&editor, Qt::Key_Return);
    QCOMPARE(submitted.count(), 1);
    QCOMPARE(submitted.at(0).at(0).toString(), QStringLiteral("first\nsecond"));
    QVERIFY(editor.toPlainText().isEmpty());
}

void TestInputEditor::whitespaceIsNotSent()
{
    InputEditor editor;
    QSignalSpy submitted(&editor, &InputEditor::submitted);
    QTest::keyClicks(&editor, QStringLiteral("   "));
    QTest::keyClick(&editor, Qt::Key_Return);
    QCOMPARE(submitted.count(), 0);
}

void TestInputEditor::upAndDownRecallHistoryAtTheEdges()
{
    InputEditor editor;
    editor.show();
    for (const QString &text : {QStringLiteral("one"), QStringLiteral("two\nlines")}) {
        QTest::keyClicks(&editor, text.section(QLatin1Char('\n'), 0, 0));
        if (text.contains(QLatin1Char('\n'))) {
            QTest::keyClick(&editor, Qt::Key_Return, Qt::ShiftModifier);
            QTest::keyClicks(&editor, text.section(QLatin1Char('\n'), 1));
        }
        QTest::keyClick(&editor, Qt::Key_Return);
    }
    QTest::keyClicks(&editor, QStringLiteral("draft"));
    QTest::keyClick(&editor, Qt::Key_Up);
    QCOMPARE(editor.toPlainText(), QStringLiteral("two\nlines"));
    // The cursor sits on the last line: Up first moves within the text, then recalls.
    QTest::keyClick(&editor, Qt::Key_Up);
    QCOMPARE(editor.toPlainText(), QStringLiteral("two\nlines"));
    QTest::keyClick(&editor, Qt::Key_Up);
    QCOMPARE(editor.toPlainText(), QStringLiteral("one"));
    QTest::keyClick(&editor, Qt::Key_Down);
    QCOMPARE(editor.toPlainText(), QStringLiteral("two\nlines"));
    QTest::keyClick(&editor, Qt::Key_Down);
    QCOMPARE(editor.toPlainText(), QStringLiteral("draft"));
}

void TestInputEditor::slashCompletesCommands()
{
    InputEditor editor;
    editor.setCommands(SlashCommands::all());
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    QTest::keyClicks(&editor, QStringLiteral("/comp"));
    QTRY_VERIFY(editor.completer()->popup()->isVisible());
    QCOMPARE(editor.completer()->completionModel()->rowCount(), 1);
    // Found when tried: the list read "/compact", "/context", "/clear"... with nothing to say what each does.
    // Each row gives the command's arguments and what it does; the choice inserts the name.
    const SlashCommands::Command &compact = SlashCommands::command(SlashCommands::Id::Compact);
    const QString row = editor.completer()->completionModel()->index(0, 0).data(Qt::DisplayRole).toString();
    QVERIFY2(row.startsWith(QStringLiteral("/compact [focus]")) && row.contains(compact.description),
             qPrintable(row));
    QTest::keyClick(editor.completer()->popup(), Qt::Key_Return);
    QCOMPARE(editor.toPlainText(), QStringLiteral("/compact "));
}

void TestInputEditor::atCompletesFiles()
{
    InputEditor editor;
    editor.setFiles(
        {QStringLiteral("src/main.cpp"), QStringLiteral("src/mainwindow.cpp"), QStringLiteral("README.md")});
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    QTest::keyClicks(&editor, QStringLiteral("look at @READ"));
    QTRY_VERIFY(editor.completer()->popup()->isVisible());
    QTest::keyClick(editor.completer()->popup(), Qt::Key_Return);
    QCOMPARE(editor.toPlainText(), QStringLiteral("look at @README.md "));
}

// Found when tried in the window: "@big" then Tab, as in a shell, closed the list, left "@big" as it was and
// moved the focus to the next widget, so the Return after it sent nothing. Tab takes the completion (a file
// or a command) and the focus stays; without the list open, Tab moves the focus on as before.
void TestInputEditor::tabTakesTheCompletion()
{
    QWidget window;
    auto *editor = new InputEditor(&window);
    auto *next = new QPushButton(QStringLiteral("Next"), &window);
    next->move(0, 120);
    editor->setFiles({QStringLiteral("big.txt"), QStringLiteral("notes.md")});
    editor->setCommands(SlashCommands::all());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    editor->setFocus();
    QTRY_VERIFY(editor->hasFocus());
    QTest::keyClicks(editor, QStringLiteral("what is in @big"));
    QTRY_VERIFY(editor->completer()->popup()->isVisible());
    QTest::keyClick(editor->completer()->popup(), Qt::Key_Tab);
    QCOMPARE(editor->toPlainText(), QStringLiteral("what is in @big.txt "));
    QVERIFY(editor->hasFocus());
    QVERIFY(!editor->completer()->popup()->isVisible());

    editor->clear();
    QTest::keyClicks(editor, QStringLiteral("/comp"));
    QTRY_VERIFY(editor->completer()->popup()->isVisible());
    QTest::keyClick(editor->completer()->popup(), Qt::Key_Tab);
    QCOMPARE(editor->toPlainText(), QStringLiteral("/compact "));
    QVERIFY(editor->hasFocus());

    QTest::keyClick(editor, Qt::Key_Tab);
    QTRY_VERIFY(next->hasFocus());
    QCOMPARE(editor->toPlainText(), QStringLiteral("/compact "));
}

// Found when tried: in a folder of 50,000 files, "@dir17/file24" completed nothing: the index kept the
// first 20,000 paths the walk met. A folder past that size is indexed whole (25,000 files on disk: writing
// more only slows the suite), and completion finds a deep file among 250,000 paths, the index's limit.
void TestInputEditor::atCompletesAFileDeepInABigFolder()
{
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    for (int dir = 0; dir < 100; ++dir) {
        const QString path = folder.filePath(QStringLiteral("dir%1").arg(dir));
        QVERIFY(QDir().mkpath(path));
        for (int file = 0; file < 250; ++file) {
            QFile touched(QStringLiteral("%1/file%2.txt").arg(path).arg(file));
            QVERIFY(touched.open(QIODevice::WriteOnly));
        }
    }
    const QStringList scanned = WorkspaceFileIndex::scan(folder.path());
    QCOMPARE(scanned.size(), 25000);
    QVERIFY(scanned.contains(QStringLiteral("dir99/file249.txt")));

    QStringList files;
    files.reserve(WorkspaceFileIndex::MaxFiles);
    for (int dir = 0; dir < 1000; ++dir) {
        for (int file = 0; file < WorkspaceFileIndex::MaxFiles / 1000; ++file)
            files << QStringLiteral("src/dir%1/file%2.txt").arg(dir).arg(file);
    }
    InputEditor editor;
    editor.setFiles(files);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    for (const QString &wanted :
         {QStringLiteral("src/dir17/file24.txt"), QStringLiteral("src/dir999/file249.txt")}) {
        // Typed up to its last character, which asks for the completion (as the window does on every key).
        const QString typed = QStringLiteral("look at @") + wanted.chopped(4);
        editor.setPlainText(typed.chopped(1));
        editor.moveCursor(QTextCursor::End);
        QTest::keyClicks(&editor, typed.right(1));
        QTRY_VERIFY(editor.completer()->popup()->isVisible());
        QCOMPARE(editor.completer()->popup()->currentIndex().data().toString(), wanted);
        QTest::keyClick(editor.completer()->popup(), Qt::Key_Escape);
    }
}

void TestInputEditor::ctrlCCopiesSelectionElseAsksToInterrupt()
{
    InputEditor editor;
    editor.show();
    QSignalSpy interrupt(&editor, &InputEditor::interruptRequested);
    QTest::keyClick(&editor, Qt::Key_C, Qt::ControlModifier);
    QCOMPARE(interrupt.count(), 1);
    QTest::keyClicks(&editor, QStringLiteral("selected words"));
    editor.selectAll();
    QTest::keyClick(&editor, Qt::Key_C, Qt::ControlModifier);
    QCOMPARE(interrupt.count(), 1);
    QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("selected words"));
}

// Found when tried: a file dragged from the file manager onto the input became "file:///home/...", a link
// the model cannot use. Dropped or pasted files are named: @path inside the workspace (as the @ completion
// writes it), the absolute path outside it, quoted when it holds a space. A dragged web link stays text.
void TestInputEditor::droppedOrPastedFilesAreNamed()
{
    const QString workspace = QDir::cleanPath(m_env.path(QStringLiteral("work")));
    InputEditor editor;
    editor.setWorkspace(workspace);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    QTest::keyClicks(&editor, QStringLiteral("compare"));

    auto *files = new QMimeData;
    files->setUrls({QUrl::fromLocalFile(workspace + QStringLiteral("/src/main.cpp")),
                    QUrl::fromLocalFile(workspace + QStringLiteral("/docs/read me.md")),
                    QUrl::fromLocalFile(QStringLiteral("/etc/hosts"))});
    QApplication::clipboard()->setMimeData(files);
    QTest::keyClick(&editor, Qt::Key_V, Qt::ControlModifier);
    QCOMPARE(editor.toPlainText(), QStringLiteral("compare @src/main.cpp @\"docs/read me.md\" /etc/hosts "));

    editor.clear();
    QPoint at = editor.viewport()->rect().center();
    auto *link = new QMimeData;
    link->setUrls({QUrl(QStringLiteral("https://example.org/page"))});
    link->setText(QStringLiteral("https://example.org/page"));
    QDragEnterEvent enter(at, Qt::CopyAction, link, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(editor.viewport(), &enter);
    QDropEvent drop(at, Qt::CopyAction, link, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(editor.viewport(), &drop);
    QCOMPARE(editor.toPlainText(), QStringLiteral("https://example.org/page"));

    editor.clear();
    auto *dropped = new QMimeData;
    dropped->setUrls({QUrl::fromLocalFile(workspace + QStringLiteral("/notes.txt"))});
    QDragEnterEvent enterFile(at, Qt::CopyAction, dropped, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(editor.viewport(), &enterFile);
    QVERIFY(enterFile.isAccepted());
    QDropEvent dropFile(at, Qt::CopyAction, dropped, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(editor.viewport(), &dropFile);
    QCOMPARE(editor.toPlainText(), QStringLiteral("@notes.txt "));
    delete link;
    delete dropped;
}

void TestInputEditor::escapeIsReported()
{
    InputEditor editor;
    editor.show();
    QSignalSpy escape(&editor, &InputEditor::escapePressed);
    QTest::keyClick(&editor, Qt::Key_Escape);
    QCOMPARE(escape.count(), 1);
}

// Found when tried in a narrow window: "Message Keen (Enter sends, Shift+Enter adds a line)" wrapped to a
// second line that the one-line box cut in half. Where the whole hint does not fit, a short one; the whole
// one again when there is room, also after a zoom.
void TestInputEditor::theHintFitsTheBox()
{
    InputEditor editor;
    editor.resize(800, editor.sizeHint().height());
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    const QString full = QStringLiteral("Message Keen (Enter sends, Shift+Enter adds a line)");
    QCOMPARE(editor.placeholderText(), full);
    editor.resize(editor.fontMetrics().horizontalAdvance(full) / 2, editor.height());
    QTRY_COMPARE(editor.placeholderText(), QStringLiteral("Message Keen"));
    QVERIFY(editor.fontMetrics().horizontalAdvance(editor.placeholderText()) < editor.viewport()->width());
    editor.resize(800, editor.height());
    QTRY_COMPARE(editor.placeholderText(), full);
    QFont big = editor.font();
    big.setPointSizeF(big.pointSizeF() * 3);
    editor.setFont(big);
    QTRY_COMPARE(editor.placeholderText(), QStringLiteral("Message Keen"));
}

QTEST_MAIN(TestInputEditor)
#include "tst_inputeditor.moc"
