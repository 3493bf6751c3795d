#pragma once

#include "providers/clientconfig.h"

#include <QWizard>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;

namespace keen {

class LocalServerProbe;

// First run (no provider configured): pick a provider (local OpenAI-compatible servers found on their usual
// ports are listed first), then the key and the model.
class SetupWizard final : public QWizard
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SetupWizard)

public:
    explicit SetupWizard(QWidget *parent = nullptr);
    ~SetupWizard() override;

    LocalServerProbe *probe() const { return m_probe; }
    ClientConfig config() const;

Q_SIGNALS:
    void configured(const keen::ClientConfig &config);

protected:
    void initializePage(int id) override;

private:
    LocalServerProbe *m_probe;
    QListWidget *m_found;
    QLabel *m_probeStatus;
    QComboBox *m_provider;
    QLineEdit *m_apiKey;
    QLineEdit *m_baseUrl;
    QComboBox *m_model;
};

} // namespace keen
