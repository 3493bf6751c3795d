// whenFinished runs a continuation from the context's event loop, never inside the call that attached it
// (issue 14: `run --pin` and `run --compact-threshold off` hung under load when a transcript write finished
// before its continuation was attached, because QFuture::then(context, ...) then ran it at once, before the
// runner had connected to the signal it emits).
#include "base/whenfinished.h"

#include <QDirIterator>
#include <QPromise>
#include <QRegularExpression>
#include <QTest>
#include <QThread>

#include <memory>

namespace keen {

class TestWhenFinished : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void finishedFutureRunsAfterTheCallReturns()
    {
        QObject context;
        int got = -1;
        whenFinished(QtFuture::makeReadyFuture(7), &context, [&got](int value) { got = value; });
        QCOMPARE(got, -1); // not yet: whoever attached it has not had the chance to connect anything
        QTRY_COMPARE(got, 7);
    }

    void voidFutureRunsToo()
    {
        QObject context;
        bool ran = false;
        whenFinished(QtFuture::makeReadyFuture(), &context, [&ran] { ran = true; });
        QVERIFY(!ran);
        QTRY_VERIFY(ran);
    }

    void resultFromAnotherThreadArrivesOnTheContextsThread()
    {
        QObject context;
        auto promise = std::make_shared<QPromise<QString>>();
        promise->start();
        QThread *ranOn = nullptr;
        QString got;
        whenFinished(promise->future(), &context, [&](const QString &value) {
            ranOn = QThread::currentThread();
            got = value;
        });
        std::unique_ptr<QThread> worker(QThread::create([promise] {
            promise->addResult(QStringLiteral("written"));
            promise->finish();
        }));
        worker->start();
        QVERIFY(worker->wait(5000));
        QTRY_COMPARE(got, QStringLiteral("written"));
        QCOMPARE(ranOn, QThread::currentThread());
    }

    void goneContextIsNeverCalled()
    {
        auto context = std::make_unique<QObject>();
        bool ran = false;
        whenFinished(QtFuture::makeReadyFuture(1), context.get(), [&ran](int) { ran = true; });
        context.reset(); // before the event loop had a turn
        QTest::qWait(50);
        QVERIFY(!ran);
    }

    // The rule holds for the whole code base: a continuation attached with a QObject context goes through
    // whenFinished (QtFuture::Launch::Sync, where running at once is the point, is allowed).
    void noContinuationRunsInsideTheCallThatAttachedIt()
    {
        const QString root = QStringLiteral(KEEN_SOURCE_DIR);
        const QRegularExpression contextThen(QStringLiteral(R"(\.then\(\s*(?!QtFuture::Launch::Sync))"));
        QStringList offenders;
        int scanned = 0;
        for (const QString &folder : {QStringLiteral("core"), QStringLiteral("ui"), QStringLiteral("app")}) {
            QDirIterator it(root + QLatin1Char('/') + folder,
                            {QStringLiteral("*.cpp"), QStringLiteral("*.h")}, QDir::Files,
                            QDirIterator::Subdirectories);
            while (it.hasNext()) {
                const QString path = it.next();
                if (path.endsWith(QLatin1String("base/whenfinished.h")))
                    continue; // the one place that calls then(context, ...), and defers the call
                QFile file(path);
                QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(path));
                ++scanned;
                if (QString::fromUtf8(file.readAll()).contains(contextThen))
                    offenders.append(path.mid(root.size() + 1));
            }
        }
        QVERIFY(scanned > 100);
        QVERIFY2(offenders.isEmpty(), qPrintable(offenders.join(QLatin1String(", "))));
    }
};

} // namespace keen

QTEST_GUILESS_MAIN(keen::TestWhenFinished)
#include "tst_whenfinished.moc"
