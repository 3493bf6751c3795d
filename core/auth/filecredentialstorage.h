#pragma once

#include "auth/credentialstorage.h"

#include <QCoreApplication>
#include <QString>

#include <mutex>

namespace keen {

// Credentials in auth.json (reference 1.4): one entry per provider id, the file replaced atomically and
// readable by its owner only (0600). Other providers' entries are kept as they are.
class FileCredentialStorage final : public CredentialStorage
{
    Q_DECLARE_TR_FUNCTIONS(FileCredentialStorage)

public:
    explicit FileCredentialStorage(QString path = defaultPath(),
                                   QString providerKey = QStringLiteral("openai-codex"));

    // $KEEN_HOME/auth.json, else auth.json in the application's config folder.
    static QString defaultPath();
    QString path() const { return m_path; }

    std::optional<CodexCredentials> load() const override;
    Result<void> save(const CodexCredentials &credentials) override;
    Result<void> remove() override;

private:
    QJsonObject readAll(QString *error) const;
    Result<void> writeAll(const QJsonObject &entries);

    QString m_path;
    QString m_key;
    mutable std::mutex m_mutex;
};

} // namespace keen
