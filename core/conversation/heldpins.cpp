#include "conversation/heldpins.h"

#include "conversation/historyreplay.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace keen {

namespace {

struct SoughtPin
{
    qsizetype index = 0; // in the pins asked about
    QString text;
    QString escaped; // as inside a JSON string
    // Only a text with a line break can span a command's stdout and stderr; any other part of its card is
    // found in the replayed JSON already, escaped.
    bool multiLine = false;
};

// A command's output as its card shows it: stdout, then stderr on a line of its own. Empty for any other
// output. The object is the activity's own when it has one; a replayed string is parsed only when it can be
// a command's JSON.
QString commandOutputShown(const ToolActivity &activity, const QString &replayed)
{
    QJsonObject output;
    if (activity.retainedOutput.isObject())
        output = activity.retainedOutput.toObject();
    else if (activity.retainedOutput.isUndefined() || activity.retainedOutput.isNull())
        output = activity.hasRawOutput && activity.rawOutput.isObject() ? activity.rawOutput.toObject()
                                                                        : QJsonObject();
    if (output.isEmpty() && replayed.startsWith(QLatin1Char('{')) &&
        replayed.contains(QLatin1String("\"stderr\"")))
        output = QJsonDocument::fromJson(replayed.toUtf8()).object();
    const QString errors = output.value(QLatin1String("stderr")).toString();
    if (errors.isEmpty())
        return {}; // stdout alone is in the replayed JSON, escaped
    QString shown = output.value(QLatin1String("stdout")).toString();
    if (!shown.isEmpty() && !shown.endsWith(QLatin1Char('\n')))
        shown += QLatin1Char('\n');
    return shown + errors;
}

} // namespace

PinList pinsMissingFromHistory(const MessageList &history, const PinList &pins)
{
    QList<SoughtPin> sought;
    sought.reserve(pins.size());
    for (qsizetype i = 0; i < pins.size(); ++i) {
        const QString &text = pins.at(i).text;
        const QString quoted = serializeJson(QJsonValue(text));
        sought.append(
            SoughtPin{i, text, quoted.sliced(1, quoted.size() - 2), text.contains(QLatin1Char('\n'))});
    }
    for (const Message &message : history) {
        if (sought.isEmpty())
            break;
        sought.removeIf([&message](const SoughtPin &pin) { return message.content.contains(pin.text); });
        if (!message.turnMemory)
            continue;
        for (const ToolActivity &activity : message.turnMemory->toolActivity) {
            if (sought.isEmpty())
                break;
            const QString replayed = replayResult(activity);
            sought.removeIf([&replayed](const SoughtPin &pin) {
                return replayed.contains(pin.text) || replayed.contains(pin.escaped);
            });
            if (std::none_of(sought.cbegin(), sought.cend(),
                             [](const SoughtPin &pin) { return pin.multiLine; }))
                continue;
            const QString shown = commandOutputShown(activity, replayed);
            if (!shown.isEmpty())
                sought.removeIf(
                    [&shown](const SoughtPin &pin) { return pin.multiLine && shown.contains(pin.text); });
        }
    }
    PinList missing;
    for (const SoughtPin &pin : sought)
        missing.append(pins.at(pin.index));
    return missing;
}

} // namespace keen
