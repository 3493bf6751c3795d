// Translations (issue 15): with a German system locale (LANG=de_DE.UTF-8) the window speaks German, from the
// .qm files qt_add_translations builds out of resources/translations; Qt's own texts follow. The catalogue is
// complete: no German entry is unfinished or empty.
#include "chat/chatview.h"
#include "mainwindow.h"
#include "translations.h"

#include "testenvironment.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QProcessEnvironment>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QTest>
#include <QToolButton>

#include <memory>

using namespace keen;

class TestTranslations : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void germanCatalogueIsComplete();
    void windowSpeaksGermanForAGermanSystemLocale();
    void everySidebarButtonFitsInGerman();

private:
    // The main window on a project folder, shown, with the German catalogue installed by initTestCase.
    std::unique_ptr<MainWindow> showWindow();

    test::TestEnvironment m_env;
    QStringList m_installed;
};

std::unique_ptr<MainWindow> TestTranslations::showWindow()
{
    QDir().mkpath(m_env.path(QStringLiteral("project")));
    LaunchOptions options;
    options.provider = QStringLiteral("anthropic");
    options.model = QStringLiteral("claude-fable-5-1");
    options.workspace = m_env.path(QStringLiteral("project"));
    auto window = std::make_unique<MainWindow>(options);
    window->show();
    return window;
}

void TestTranslations::initTestCase()
{
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope,
                       m_env.path(QStringLiteral("qsettings")));
    qputenv("ANTHROPIC_API_KEY", "test-key");
    QCOMPARE(QLocale().language(), QLocale::German); // from LANG, set before the application started
    // What main() does: the system locale's translations (build/share/keen-desktop/translations here).
    m_installed = Translations::install(qApp, QLocale());
}

void TestTranslations::germanCatalogueIsComplete()
{
    QFile file(QStringLiteral(KEEN_SOURCE_DIR "/resources/translations/keen-desktop_de.ts"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString ts = QString::fromUtf8(file.readAll());
    static const QRegularExpression message(QStringLiteral("<message[^>]*>.*?</message>"),
                                            QRegularExpression::DotMatchesEverythingOption);
    static const QRegularExpression source(QStringLiteral("<source>(.*?)</source>"),
                                           QRegularExpression::DotMatchesEverythingOption);
    static const QRegularExpression empty(
        QStringLiteral("type=\"unfinished\"|<translation>\\s*</translation>|<translation/>|"
                       "<numerusform>\\s*</numerusform>"));
    int messages = 0;
    QStringList untranslated;
    for (auto it = message.globalMatch(ts); it.hasNext();) {
        const QString block = it.next().captured(0);
        ++messages;
        if (block.contains(empty))
            untranslated << source.match(block).captured(1);
    }
    QVERIFY2(messages > 250, qPrintable(QString::number(messages)));
    QVERIFY2(untranslated.isEmpty(), qPrintable(untranslated.join(QLatin1Char('\n'))));
}

void TestTranslations::windowSpeaksGermanForAGermanSystemLocale()
{
    QVERIFY2(!m_installed.isEmpty(), "no translation was installed");
    QVERIFY(m_installed.constFirst().endsWith(QStringLiteral("keen-desktop_de.qm")));
    const std::unique_ptr<MainWindow> shown = showWindow();
    MainWindow &window = *shown;
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    QStringList menus;
    for (const QAction *action : window.menuBar()->actions())
        menus << action->text();
    QCOMPARE(menus, (QStringList{QStringLiteral("&Datei"), QStringLiteral("&Unterhaltung"),
                                 QStringLiteral("&Ansicht"), QStringLiteral("&Hilfe")}));
    QCOMPARE(window.findChild<QAction *>(QStringLiteral("openFolderAction"))->text(),
             QStringLiteral("Ordner ö&ffnen ..."));
    QCOMPARE(window.findChild<QAction *>(QStringLiteral("sessionsAction"))->text(),
             QStringLiteral("S&itzungen"));
    QCOMPARE(window.findChild<QAction *>(QStringLiteral("compactAction"))->text(),
             QStringLiteral("&Verdichten"));
    QVERIFY(window.findChild<QAction *>(QStringLiteral("compactAction"))
                ->toolTip()
                .startsWith(QStringLiteral("Verdichten: die Unterhaltung")));

    // The provider names the core's table gives the pickers.
    const auto *providers = window.findChild<QComboBox *>(QStringLiteral("providerCombo"));
    QVERIFY(providers);
    QVERIFY(providers->findText(QStringLiteral("ChatGPT (Codex-Anmeldung)")) >= 0);
    QVERIFY(providers->findText(QStringLiteral("OpenAI-kompatibler Server")) >= 0);

    // Qt's own buttons come in German too (qtbase_de.qm).
    QDialogButtonBox box(QDialogButtonBox::Cancel);
    QCOMPARE(box.button(QDialogButtonBox::Cancel)->text(), QStringLiteral("Abbrechen"));
}

// Issue 15: at the sidebar's default width the German labels (Öffnen, Umbenennen, Löschen …) pushed "Mehr"
// (Export, Show in File Manager) behind a toolbar extension button that did not open.
void TestTranslations::everySidebarButtonFitsInGerman()
{
    const std::unique_ptr<MainWindow> shown = showWindow();
    MainWindow &window = *shown;
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    auto *panel = window.findChild<QWidget *>(QStringLiteral("sessionBrowserPanel"));
    QVERIFY(panel && panel->isVisible());
    // "Mehr" first: the button the toolbar hid.
    for (const QString &name :
         {QStringLiteral("sessionMoreButton"), QStringLiteral("openSessionActionButton"),
          QStringLiteral("renameSessionActionButton"), QStringLiteral("deleteSessionActionButton")}) {
        auto *button = panel->findChild<QToolButton *>(name);
        QVERIFY2(button, qPrintable(name));
        QVERIFY2(button->isVisible(), qPrintable(name));
        const QRect shown(button->mapTo(panel, QPoint(0, 0)), button->size());
        QVERIFY2(panel->rect().contains(shown), qPrintable(name));
    }
    QCOMPARE(panel->findChild<QToolButton *>(QStringLiteral("sessionMoreButton"))->text(),
             QStringLiteral("Mehr"));
}

int main(int argc, char **argv)
{
    // The person's system is German: the locale comes from the environment, as on a desktop.
    const QStringList variables = QProcessEnvironment::systemEnvironment().keys();
    for (const QString &name : variables) {
        if (name.startsWith(QLatin1String("LC_")) || name == QLatin1String("LANGUAGE"))
            qunsetenv(name.toLocal8Bit().constData());
    }
    qputenv("LANG", "de_DE.UTF-8");
    QApplication app(argc, argv);
    TestTranslations test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_translations.moc"
