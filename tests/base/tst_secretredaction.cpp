// A provider's error text loses the key it quotes before anyone sees it (issue 14, secrets).
#include "base/secretredaction.h"

#include <QTest>
#include <QUrl>

namespace keen {

class TestSecretRedaction : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void keyIsReplacedEverywhere()
    {
        const QString key = QStringLiteral("sk-CANARY-abc/def+123");
        const QString text =
            QStringLiteral("Incorrect API key provided: %1. See https://x.invalid/?key=%2 (%1)")
                .arg(key, QString::fromLatin1(QUrl::toPercentEncoding(key)));
        const QString redacted = SecretRedaction::redact(text, key);
        QCOMPARE(redacted, QStringLiteral("Incorrect API key provided: [redacted]. See "
                                          "https://x.invalid/?key=[redacted] ([redacted])"));
    }

    void placeholdersAndEmptyKeysLeaveTextAlone()
    {
        const QString text = QStringLiteral("the model none is not available");
        QCOMPARE(SecretRedaction::redact(text, QStringLiteral("none")), text);
        QCOMPARE(SecretRedaction::redact(text, QString()), text);
        QCOMPARE(SecretRedaction::redact(QString(), QStringLiteral("sk-CANARY-long-enough")), QString());
    }
};

} // namespace keen

QTEST_GUILESS_MAIN(keen::TestSecretRedaction)
#include "tst_secretredaction.moc"
