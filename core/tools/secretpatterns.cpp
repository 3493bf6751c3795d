#include "tools/secretpatterns.h"

#include <QFileInfo>
#include <QList>
#include <QRegularExpression>

namespace keen {

QString SecretPatterns::find(const QString &text)
{
    struct Pattern
    {
        const char *kind;
        QRegularExpression regex;
    };
    static const QList<Pattern> patterns = {
        {"private key", QRegularExpression(QStringLiteral("-----BEGIN [A-Z ]*PRIVATE KEY-----"))},
        {"AWS access key", QRegularExpression(QStringLiteral("\\b(AKIA|ASIA)[0-9A-Z]{16}\\b"))},
        {"GitHub token", QRegularExpression(QStringLiteral("\\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}\\b|"
                                                           "\\bgithub_pat_[A-Za-z0-9_]{40,}"))},
        {"API key", QRegularExpression(QStringLiteral("\\bsk-(ant-|proj-)?[A-Za-z0-9_-]{20,}"))},
        {"Slack token", QRegularExpression(QStringLiteral("\\bxox[abprs]-[A-Za-z0-9-]{10,}"))},
        {"Google API key", QRegularExpression(QStringLiteral("\\bAIza[0-9A-Za-z_-]{35}\\b"))},
        {"password assignment",
         QRegularExpression(QStringLiteral(
             "(?i)\\b(password|passwd|secret|api_?key|token)\\s*[:=]\\s*['\"]?[^\\s'\"]{8,}"))},
    };
    for (const Pattern &pattern : patterns) {
        if (pattern.regex.match(text).hasMatch())
            return QString::fromLatin1(pattern.kind);
    }
    return {};
}

bool SecretPatterns::isMemoryFile(const QString &path)
{
    return QFileInfo(path).fileName() == QLatin1String("MEMORY.md");
}

} // namespace keen
