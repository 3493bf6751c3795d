#include "mainwindow.h"

#include <QAction>
#include <QApplication>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>

namespace keen {

MainWindow::MainWindow(const LaunchOptions &options, QWidget *parent)
    : QMainWindow(parent)
    , m_options(options)
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("Keen Desktop"));
    setWindowIcon(QIcon(QStringLiteral(":/keen/keen-desktop.svg")));
    resize(1100, 760);
    createMenus();
    auto *placeholder = new QLabel(tr("What are we building?"), this);
    placeholder->setAlignment(Qt::AlignCenter);
    setCentralWidget(placeholder);
}

MainWindow::~MainWindow() = default;

void MainWindow::createMenus()
{
    QMenu *fileMenu = menuBar()->addMenu(tr("&File"));
    QAction *quit = fileMenu->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setObjectName(QStringLiteral("quitAction"));

    QMenu *helpMenu = menuBar()->addMenu(tr("&Help"));
    QAction *about = helpMenu->addAction(tr("&About Keen Desktop"), this, &MainWindow::showAbout);
    about->setObjectName(QStringLiteral("aboutAction"));
    helpMenu->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::showAbout()
{
    QMessageBox::about(
        this, tr("About Keen Desktop"),
        tr("<h3>Keen Desktop %1</h3>"
           "<p>A desktop agent that works in your project folder with a large language model.</p>"
           "<p>Built with Qt %2.</p>")
            .arg(QApplication::applicationVersion(), QString::fromLatin1(qVersion())));
}

} // namespace keen
