// LruCache, the bounded least-recently-used map behind the chat view's caches (ChatDelegate's laid-out
// documents and row sizes): past its capacity it drops the entry used longest ago, a lookup counts as a use,
// and it never holds more than its capacity.
#include "chat/lrucache.h"

#include <QRandomGenerator>
#include <QString>
#include <QTest>

#include <algorithm>
#include <list>
#include <utility>

using namespace keen;

class TestLruCache : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void insertingPastTheCapacityDropsTheLeastRecentlyUsed();
    void aLookupMakesAnEntryTheMostRecentlyUsed();
    void aDroppedEntryComesBackEmpty();
    void removeAndClearMakeRoom();
    void neverHoldsMoreThanItsCapacity();
    void aCapacityOfZeroStillKeepsTheEntryJustMade();
};

namespace {

using Cache = LruCache<int, QString>;

QString valueOf(Cache &cache, int key)
{
    const QString *value = cache.find(key);
    return value ? *value : QStringLiteral("<none>");
}

} // namespace

void TestLruCache::insertingPastTheCapacityDropsTheLeastRecentlyUsed()
{
    Cache cache(3);
    QCOMPARE(cache.capacity(), std::size_t(3));
    QCOMPARE(cache.size(), std::size_t(0));
    cache.get(1) = QStringLiteral("one");
    cache.get(2) = QStringLiteral("two");
    cache.get(3) = QStringLiteral("three");
    QCOMPARE(cache.size(), std::size_t(3)); // full, nothing dropped yet

    cache.get(4) = QStringLiteral("four");
    QCOMPARE(cache.size(), std::size_t(3));
    QVERIFY(!cache.find(1)); // the oldest went
    QCOMPARE(valueOf(cache, 2), QStringLiteral("two"));
    QCOMPARE(valueOf(cache, 3), QStringLiteral("three"));
    QCOMPARE(valueOf(cache, 4), QStringLiteral("four"));

    // The lookups above used 2, 3 and 4 in that order: 2 is the oldest now.
    cache.get(5) = QStringLiteral("five");
    QVERIFY(!cache.find(2));
    QCOMPARE(cache.size(), std::size_t(3));
}

void TestLruCache::aLookupMakesAnEntryTheMostRecentlyUsed()
{
    Cache cache(3);
    cache.get(1) = QStringLiteral("one");
    cache.get(2) = QStringLiteral("two");
    cache.get(3) = QStringLiteral("three");
    QVERIFY(cache.find(1)); // 1 is the most recent now, 2 the least
    cache.get(4) = QStringLiteral("four");
    QVERIFY(!cache.find(2));
    QCOMPARE(valueOf(cache, 1), QStringLiteral("one"));

    // get() of a key it holds is a lookup too: it keeps the value and makes the entry the most recent.
    // Order now, oldest first: 3, 4, 1 (find(2) above found nothing and changed nothing).
    QCOMPARE(cache.get(3), QStringLiteral("three"));
    cache.get(5) = QStringLiteral("five");
    QVERIFY(!cache.find(4));
    QCOMPARE(valueOf(cache, 3), QStringLiteral("three"));
    QCOMPARE(valueOf(cache, 1), QStringLiteral("one"));
    QCOMPARE(valueOf(cache, 5), QStringLiteral("five"));
    QCOMPARE(cache.size(), std::size_t(3));
}

// What the delegate relies on: an entry made again after it was dropped starts default-constructed (a size
// entry of width -1, a document not built yet), so the row is laid out afresh, never shown with stale data.
void TestLruCache::aDroppedEntryComesBackEmpty()
{
    Cache cache(2);
    cache.get(1) = QStringLiteral("one");
    cache.get(2) = QStringLiteral("two");
    cache.get(3) = QStringLiteral("three");
    QVERIFY(!cache.find(1));
    QCOMPARE(cache.get(1), QString());
    QCOMPARE(cache.size(), std::size_t(2));
    QVERIFY(!cache.find(2)); // making 1 again dropped the oldest
}

void TestLruCache::removeAndClearMakeRoom()
{
    Cache cache(3);
    cache.get(1) = QStringLiteral("one");
    cache.get(2) = QStringLiteral("two");
    cache.get(3) = QStringLiteral("three");
    cache.remove(2);
    cache.remove(42); // not held: nothing happens
    QCOMPARE(cache.size(), std::size_t(2));
    cache.get(4) = QStringLiteral("four"); // fits in the room made: nothing is dropped
    QCOMPARE(cache.size(), std::size_t(3));
    QCOMPARE(valueOf(cache, 1), QStringLiteral("one"));
    QCOMPARE(valueOf(cache, 3), QStringLiteral("three"));
    QCOMPARE(valueOf(cache, 4), QStringLiteral("four"));

    cache.clear();
    QCOMPARE(cache.size(), std::size_t(0));
    QVERIFY(!cache.find(1));
    for (int key = 10; key < 13; ++key)
        cache.get(key) = QString::number(key);
    QCOMPARE(cache.size(), std::size_t(3));
    QCOMPARE(valueOf(cache, 10), QStringLiteral("10"));
}

// Many mixed uses against a plain list kept in recency order: after every step the cache holds exactly the
// keys the list does, with their values, and no more than its capacity.
// get() hands back the entry it made: with no room at all it would drop that very entry and return a
// dangling reference, so the cache keeps at least one.
void TestLruCache::aCapacityOfZeroStillKeepsTheEntryJustMade()
{
    Cache cache(0);
    QCOMPARE(cache.capacity(), std::size_t(1));
    cache.get(1) = QStringLiteral("one");
    QCOMPARE(valueOf(cache, 1), QStringLiteral("one"));
    cache.get(2) = QStringLiteral("two");
    QCOMPARE(cache.size(), std::size_t(1));
    QCOMPARE(valueOf(cache, 1), QStringLiteral("<none>"));
    QCOMPARE(valueOf(cache, 2), QStringLiteral("two"));
}

void TestLruCache::neverHoldsMoreThanItsCapacity()
{
    constexpr std::size_t Capacity = 16;
    Cache cache(Capacity);
    std::list<std::pair<int, QString>> expected; // most recent first
    QRandomGenerator random(20240613);           // the same uses every run
    std::size_t largest = 0;
    int dropped = 0;
    for (int step = 0; step < 20000; ++step) {
        const int key = int(random.bounded(40));
        const auto held = std::find_if(expected.begin(), expected.end(),
                                       [key](const auto &entry) { return entry.first == key; });
        switch (random.bounded(4)) {
        case 0: { // a lookup
            const QString *value = cache.find(key);
            QCOMPARE(value != nullptr, held != expected.end());
            if (value) {
                QCOMPARE(*value, held->second);
                expected.splice(expected.begin(), expected, held);
            }
            break;
        }
        case 1: // a removal
            cache.remove(key);
            if (held != expected.end())
                expected.erase(held);
            break;
        default: { // a use that makes the entry when missing, and writes it
            const QString value = QStringLiteral("%1 at %2").arg(key).arg(step);
            cache.get(key) = value;
            if (held != expected.end()) {
                expected.erase(held);
            } else if (expected.size() == Capacity) {
                expected.pop_back();
                ++dropped;
            }
            expected.emplace_front(key, value);
            break;
        }
        }
        QVERIFY(cache.size() <= Capacity);
        QCOMPARE(cache.size(), expected.size());
        largest = std::max(largest, cache.size());
    }
    QCOMPARE(largest, Capacity); // it was full
    QVERIFY(dropped > 1000);     // and dropped entries many times
    // What it holds at the end, and their values (find() reorders: the expectation is read first).
    const std::list<std::pair<int, QString>> last = expected;
    for (const auto &[key, value] : last)
        QCOMPARE(valueOf(cache, key), value);
}

QTEST_APPLESS_MAIN(TestLruCache)
#include "tst_lrucache.moc"
