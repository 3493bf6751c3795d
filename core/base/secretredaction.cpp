#include "base/secretredaction.h"

#include <QUrl>

namespace keen {

QString SecretRedaction::redact(const QString &text, const QString &secret)
{
    const QString trimmed = secret.trimmed();
    if (trimmed.size() < MinimumLength || text.isEmpty())
        return text;
    static const QString marker = QStringLiteral("[redacted]");
    QString result = text;
    result.replace(trimmed, marker);
    const QString encoded = QString::fromLatin1(QUrl::toPercentEncoding(trimmed));
    if (encoded != trimmed)
        result.replace(encoded, marker, Qt::CaseInsensitive);
    return result;
}

} // namespace keen
