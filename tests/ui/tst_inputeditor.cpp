// The prompt editor: Enter sends, Shift+Enter is a newline, history at the edges, completion, Ctrl+C and Esc.
#include "chat/inputeditor.h"
#include "chat/slashcommands.h"

#include "testenvironment.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QClipboard>
#include <QCompleter>
#include <QSignalSpy>
#include <QTest>

using namespace keen;

class TestInputEditor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void enterSendsShiftEnterBreaksTheLine();
    void whitespaceIsNotSent();
    void upAndDownRecallHistoryAtTheEdges();
    void slashCompletesCommands();
    void atCompletesFiles();
    void ctrlCCopiesSelectionElseAsksToInterrupt();
    void escapeIsReported();

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
    editor.setCommandNames(SlashCommands::names());
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    QTest::keyClicks(&editor, QStringLiteral("/comp"));
    QTRY_VERIFY(editor.completer()->popup()->isVisible());
    QCOMPARE(editor.completer()->completionModel()->rowCount(), 1);
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

void TestInputEditor::escapeIsReported()
{
    InputEditor editor;
    editor.show();
    QSignalSpy escape(&editor, &InputEditor::escapePressed);
    QTest::keyClick(&editor, Qt::Key_Escape);
    QCOMPARE(escape.count(), 1);
}

QTEST_MAIN(TestInputEditor)
#include "tst_inputeditor.moc"
