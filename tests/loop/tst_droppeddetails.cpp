// What a compaction's summary left out (issue 16 point 3): paths, identifiers, numbers and error messages of
// the compacted range that the summary does not mention, found without a model call.
#include "loop/droppeddetails.h"

#include <QTest>

using namespace keen;

class TestDroppedDetails : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void findsWhatTheSummaryLeftOut();
    void nothingWhenTheSummaryKeepsItAll();
    void isBoundedAndDeterministic();
};

namespace {

MessageList range()
{
    ToolActivity build;
    build.tool = QStringLiteral("bash");
    build.input = QJsonObject{{QStringLiteral("command"), QStringLiteral("cmake --build build")}};
    build.status = QStringLiteral("error");
    build.hasRawOutput = true;
    build.rawOutput = QStringLiteral("[12/40] Building core/loop/toolloopclient.cpp\n"
                                     "core/loop/toolloopclient.cpp:418: error: no member named 'runSlices'\n"
                                     "ninja: build stopped: subcommand failed.\n");
    return {Message::system(QStringLiteral("You are Keen. SystemOnlyIdentifier")),
            Message::user(QStringLiteral("Fix the build; the budget is 15904 tokens and maxParts stays 8.")),
            Message::assistant(QStringLiteral("Building."), TurnMemory{{build}})};
}

QStringList texts(const QList<DroppedDetail> &details, DroppedDetail::Kind kind)
{
    QStringList result;
    for (const DroppedDetail &detail : details) {
        if (detail.kind == kind)
            result.append(detail.text);
    }
    return result;
}

} // namespace

void TestDroppedDetails::findsWhatTheSummaryLeftOut()
{
    const QString summary = QStringLiteral("## Goal\nFix the build of core/loop/toolloopclient.cpp.");
    const QList<DroppedDetail> details = DroppedDetails::find(range(), summary);
    QVERIFY(
        !texts(details, DroppedDetail::Kind::Path).contains(QStringLiteral("core/loop/toolloopclient.cpp")));
    QVERIFY(texts(details, DroppedDetail::Kind::Error)
                .contains(
                    QStringLiteral("core/loop/toolloopclient.cpp:418: error: no member named 'runSlices'")));
    QVERIFY(texts(details, DroppedDetail::Kind::Error)
                .contains(QStringLiteral("ninja: build stopped: subcommand failed.")));
    QVERIFY(texts(details, DroppedDetail::Kind::Identifier).contains(QStringLiteral("maxParts")));
    QVERIFY(texts(details, DroppedDetail::Kind::Identifier).contains(QStringLiteral("runSlices")));
    QVERIFY(texts(details, DroppedDetail::Kind::Number).contains(QStringLiteral("15904")));
    QVERIFY(texts(details, DroppedDetail::Kind::Number).contains(QStringLiteral("418")));
    // The system prompt is not part of the compacted range.
    QVERIFY(
        !texts(details, DroppedDetail::Kind::Identifier).contains(QStringLiteral("SystemOnlyIdentifier")));
    // Each comes with the original lines around it, to pin.
    for (const DroppedDetail &detail : details)
        QVERIFY2(detail.excerpt.contains(detail.text),
                 qPrintable(detail.text + QStringLiteral(" / ") + detail.excerpt));
}

void TestDroppedDetails::nothingWhenTheSummaryKeepsItAll()
{
    const QString summary =
        QStringLiteral("## Goal\nFix the build; budget 15904 tokens, maxParts stays 8.\n## Relevant Files\n"
                       "core/loop/toolloopclient.cpp:418: error: no member named 'runSlices'\n"
                       "ninja: build stopped: subcommand failed.\n`cmake --build build`, step [12/40]");
    const QList<DroppedDetail> details = DroppedDetails::find(range(), summary);
    QVERIFY2(details.isEmpty(), qPrintable(details.isEmpty() ? QString() : details.first().text));
}

void TestDroppedDetails::isBoundedAndDeterministic()
{
    MessageList many{Message::user(QStringLiteral("start"))};
    QString numbers;
    for (int i = 1000; i < 1200; ++i)
        numbers += QString::number(i) + QLatin1Char(' ');
    many.append(Message::user(numbers));
    const QList<DroppedDetail> first = DroppedDetails::find(many, QString(), 50);
    QCOMPARE(first.size(), 50);
    QCOMPARE(first.first().text, QStringLiteral("1000"));
    QCOMPARE(DroppedDetails::find(many, QString(), 50), first);
}

QTEST_GUILESS_MAIN(TestDroppedDetails)
#include "tst_droppeddetails.moc"
