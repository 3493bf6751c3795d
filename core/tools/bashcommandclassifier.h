#pragma once

#include <QCoreApplication>
#include <QString>
#include <QStringList>

namespace keen {

// Decides whether a shell command needs the person's approval before bash runs it (reference 2.3). It reads
// the command the way a shell would (quotes, escapes, chains, pipes, subshells, command and process
// substitution) and checks every simple command it finds. It errs on the side of asking: anything it cannot
// see through, such as inline interpreter code, counts as dangerous.
class BashCommandClassifier
{
    Q_DECLARE_TR_FUNCTIONS(BashCommandClassifier)

public:
    struct Verdict
    {
        bool dangerous = false;
        QString reason; // user-readable; empty when not dangerous
    };

    static Verdict classify(const QString &command);
    static bool isDangerous(const QString &command, QString *reason = nullptr);

private:
    static Verdict classifyText(const QString &command, int depth);
    static Verdict classifyWords(const QStringList &words, int depth);
};

} // namespace keen
