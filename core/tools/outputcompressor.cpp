#include "tools/outputcompressor.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

namespace keen {

namespace {

QStringList stringsOf(const QJsonArray &array, bool *allStrings)
{
    QStringList strings;
    *allStrings = true;
    for (const QJsonValue &value : array) {
        if (!value.isString())
            *allStrings = false;
        strings.append(value.toString());
    }
    return strings;
}

// glob, and grep in file mode: files relative to common_prefix.
QJsonObject relativizeFiles(QJsonObject object)
{
    bool allStrings = false;
    const QStringList files = stringsOf(object.value(QLatin1String("files")).toArray(), &allStrings);
    if (files.isEmpty() || !allStrings)
        return object;
    const QString prefix = OutputCompressor::commonDirectoryPrefix(files);
    if (prefix.isEmpty())
        return object;
    QJsonArray relative;
    for (const QString &file : files)
        relative.append(file.mid(prefix.size()));
    object.insert(QLatin1String("common_prefix"), prefix);
    object.insert(QLatin1String("files"), relative);
    return object;
}

QJsonObject groupMatches(QJsonObject object)
{
    const QJsonArray matches = object.value(QLatin1String("matches")).toArray();
    if (matches.isEmpty())
        return object;
    QStringList files;
    for (const QJsonValue &match : matches) {
        if (!match.isObject() || !match.toObject().value(QLatin1String("file")).isString())
            return object; // not the shape we know: leave it alone rather than lose data
        files.append(match.toObject().value(QLatin1String("file")).toString());
    }
    const QString prefix = OutputCompressor::commonDirectoryPrefix(files);

    // Files keep the order of their first match; a JSON object would sort them, which is fine for the model.
    QJsonObject grouped;
    for (const QJsonValue &match : matches) {
        QJsonObject entry = match.toObject();
        const QString file = entry.take(QLatin1String("file")).toString().mid(prefix.size());
        QJsonArray list = grouped.value(file).toArray();
        list.append(entry);
        grouped.insert(file, list);
    }
    if (!prefix.isEmpty())
        object.insert(QLatin1String("common_prefix"), prefix);
    object.insert(QLatin1String("matches"), grouped);
    return object;
}

} // namespace

QString OutputCompressor::commonDirectoryPrefix(const QStringList &paths)
{
    if (paths.isEmpty())
        return {};
    QString prefix = paths.first();
    for (const QString &path : paths) {
        qsizetype i = 0;
        const qsizetype n = std::min(prefix.size(), path.size());
        while (i < n && prefix.at(i) == path.at(i))
            ++i;
        prefix.truncate(i);
        if (prefix.isEmpty())
            return {};
    }
    const qsizetype cut =
        std::max(prefix.lastIndexOf(QLatin1Char('/')), prefix.lastIndexOf(QLatin1Char('\\')));
    return cut < 0 ? QString() : prefix.left(cut + 1);
}

QJsonValue OutputCompressor::forLlm(const QString &toolName, const QJsonValue &output)
{
    if (!output.isObject())
        return output;
    QJsonObject object = output.toObject();
    if (toolName == QLatin1String("read_file")) {
        object.remove(QLatin1String("bytes_read"));
        object.remove(QLatin1String("lines_read"));
        return object;
    }
    if (toolName == QLatin1String("glob"))
        return relativizeFiles(object);
    if (toolName == QLatin1String("grep")) {
        if (object.value(QLatin1String("output_mode")).toString() == QLatin1String("file") ||
            object.contains(QLatin1String("files")))
            return relativizeFiles(object);
        return groupMatches(object);
    }
    return output;
}

} // namespace keen
