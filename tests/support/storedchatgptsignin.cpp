#include "storedchatgptsignin.h"

#include <QDateTime>

namespace keen::test {

StoredChatGptSignIn::StoredChatGptSignIn()
{
    CodexCredentials credentials;
    credentials.accessToken = QStringLiteral("access-token");
    credentials.refreshToken = QStringLiteral("refresh-token");
    credentials.expiresAt = QDateTime::currentDateTimeUtc().addDays(1);
    m_stored = m_storage.save(credentials).ok();
}

StoredChatGptSignIn::~StoredChatGptSignIn()
{
    m_storage.remove();
}

} // namespace keen::test
