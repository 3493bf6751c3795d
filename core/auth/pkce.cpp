#include "auth/pkce.h"

#include <QCryptographicHash>
#include <QRandomGenerator>

namespace keen {

namespace {

QByteArray base64Url(const QByteArray &bytes)
{
    return bytes.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

QByteArray randomBytes(int count)
{
    QByteArray bytes(count, Qt::Uninitialized);
    QRandomGenerator *generator = QRandomGenerator::system();
    for (int i = 0; i < count; ++i)
        bytes[i] = char(generator->bounded(256));
    return bytes;
}

} // namespace

QByteArray Pkce::generateVerifier()
{
    return base64Url(randomBytes(64));
}

QByteArray Pkce::challengeForVerifier(const QByteArray &verifier)
{
    return base64Url(QCryptographicHash::hash(verifier, QCryptographicHash::Sha256));
}

QString Pkce::generateState()
{
    return QString::fromLatin1(base64Url(randomBytes(32)));
}

} // namespace keen
