#pragma once

#include "config/launchoptions.h"

#include <QMainWindow>

namespace keen {

// The main window: toolbar, chat view, input, status bar, session browser dock.
class MainWindow final : public QMainWindow
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)

public:
    explicit MainWindow(const LaunchOptions &options, QWidget *parent = nullptr);
    ~MainWindow() override;

public Q_SLOTS:
    void showAbout();

private:
    void createMenus();
    LaunchOptions m_options;
};

} // namespace keen
