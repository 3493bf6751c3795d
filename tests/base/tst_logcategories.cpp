// The keen.* logging categories are quiet by default (issue 14, secrets): without QT_LOGGING_RULES a debug or
// info line of any of them reaches no message handler, so nothing the app logs in passing (paths, provider
// messages) lands on stderr or in a journal; warnings still do, and a rule can turn the rest on.
#include "base/logcategories.h"

#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QTest>

namespace keen {

class TestLogCategories : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void debugAndInfoAreOffWithoutRules();
    void aRuleTurnsDebugOn();
    void everyKeenCategoryIsDeclaredInOnePlace();
};

namespace {

QStringList g_messages;
QtMessageHandler g_previous = nullptr;

void capture(QtMsgType, const QMessageLogContext &context, const QString &message)
{
    g_messages.append(QString::fromLatin1(context.category) + QLatin1Char(' ') + message);
}

struct CaptureMessages
{
    CaptureMessages()
    {
        g_messages.clear();
        g_previous = qInstallMessageHandler(capture);
    }
    ~CaptureMessages() { qInstallMessageHandler(g_previous); }
};

} // namespace

void TestLogCategories::debugAndInfoAreOffWithoutRules()
{
    QVERIFY(qEnvironmentVariableIsEmpty("QT_LOGGING_RULES"));
    const QList<const QLoggingCategory *> categories = LogCategories::all();
    QCOMPARE(categories.size(), 7);
    for (const QLoggingCategory *category : categories) {
        const QString name = QString::fromLatin1(category->categoryName());
        QVERIFY2(name.startsWith(QLatin1String("keen.")), qPrintable(name));
        CaptureMessages messages;
        qCDebug(*category) << "debug line sk-CANARY-log";
        qCInfo(*category) << "info line sk-CANARY-log";
        QVERIFY2(g_messages.isEmpty(), qPrintable(g_messages.join(QLatin1Char('\n'))));
        qCWarning(*category) << "a warning";
        QCOMPARE(g_messages.size(), 1);
        QVERIFY2(g_messages.constFirst().startsWith(name), qPrintable(g_messages.constFirst()));
    }
}

void TestLogCategories::aRuleTurnsDebugOn()
{
    QLoggingCategory::setFilterRules(QStringLiteral("keen.*.debug=true"));
    for (const QLoggingCategory *category : LogCategories::all())
        QVERIFY2(category->isDebugEnabled(), category->categoryName());
    QLoggingCategory::setFilterRules(QString());
    for (const QLoggingCategory *category : LogCategories::all())
        QVERIFY2(!category->isDebugEnabled(), category->categoryName());
}

void TestLogCategories::everyKeenCategoryIsDeclaredInOnePlace()
{
    // A category defined anywhere else would start with Qt's default (debug on) and escape the test above.
    const QRegularExpression definition(
        QStringLiteral(R"(Q_LOGGING_CATEGORY\s*\(|QLoggingCategory\s+\w+\s*\()"));
    const QString root = QStringLiteral(KEEN_SOURCE_DIR);
    QStringList offenders;
    int scanned = 0;
    for (const QString &folder : {QStringLiteral("core"), QStringLiteral("ui"), QStringLiteral("app")}) {
        QDirIterator it(root + QLatin1Char('/') + folder, {QStringLiteral("*.cpp"), QStringLiteral("*.h")},
                        QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            QFile file(path);
            QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(path));
            ++scanned;
            if (path.endsWith(QLatin1String("core/base/logcategories.cpp")))
                continue;
            if (QString::fromUtf8(file.readAll()).contains(definition))
                offenders.append(path);
        }
    }
    QVERIFY(scanned > 100);
    QVERIFY2(offenders.isEmpty(), qPrintable(offenders.join(QLatin1Char('\n'))));
}

} // namespace keen

int main(int argc, char **argv)
{
    // The user's default: no logging rules from the environment.
    qunsetenv("QT_LOGGING_RULES");
    QCoreApplication app(argc, argv);
    keen::TestLogCategories test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_logcategories.moc"
