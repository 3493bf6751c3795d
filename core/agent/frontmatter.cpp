#include "agent/frontmatter.h"

#include "base/regularfile.h"

#include <QRegularExpression>

namespace keen {

namespace {

QString unquote(const QString &value)
{
    if (value.size() >= 2 && value.startsWith(QLatin1Char('"')) && value.endsWith(QLatin1Char('"'))) {
        QString inner = value.mid(1, value.size() - 2);
        inner.replace(QStringLiteral("\\\""), QStringLiteral("\""));
        inner.replace(QStringLiteral("\\n"), QStringLiteral("\n"));
        inner.replace(QStringLiteral("\\\\"), QStringLiteral("\\"));
        return inner;
    }
    if (value.size() >= 2 && value.startsWith(QLatin1Char('\'')) && value.endsWith(QLatin1Char('\'')))
        return value.mid(1, value.size() - 2).replace(QStringLiteral("''"), QStringLiteral("'"));
    return value;
}

bool isIndented(const QString &line)
{
    return line.startsWith(QLatin1Char(' ')) || line.startsWith(QLatin1Char('\t'));
}

// A block list (`key:` then `- item` lines) becomes the flow list `[item, item]`, which list() reads.
QString blockList(const QStringList &items)
{
    QStringList words;
    for (const QString &item : items)
        words.append(unquote(item.mid(1).trimmed()));
    return QStringLiteral("[") + words.join(QStringLiteral(", ")) + QStringLiteral("]");
}

QHash<QString, QString> fieldsOf(const QStringList &lines)
{
    QHash<QString, QString> fields;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QString &line = lines.at(i);
        if (line.trimmed().isEmpty() || line.trimmed().startsWith(QLatin1Char('#')) || isIndented(line))
            continue;
        const qsizetype colon = line.indexOf(QLatin1Char(':'));
        if (colon <= 0)
            continue;
        const QString key = line.left(colon).trimmed();
        const QString value = line.mid(colon + 1).trimmed();
        QStringList continuation;
        // A list's `- item` lines may start at the key's own indentation, as YAML allows.
        while (i + 1 < lines.size() &&
               (isIndented(lines.at(i + 1)) || lines.at(i + 1).trimmed().isEmpty() ||
                (value.isEmpty() && lines.at(i + 1).startsWith(QLatin1String("- "))))) {
            continuation.append(lines.at(i + 1).trimmed());
            ++i;
        }
        while (!continuation.isEmpty() && continuation.constLast().isEmpty())
            continuation.removeLast();
        if (value.startsWith(QLatin1Char('|'))) {
            fields.insert(key, continuation.join(QLatin1Char('\n')));
        } else if (value.startsWith(QLatin1Char('>'))) {
            // Folded: lines join with spaces, an empty line stays a line break.
            QString folded;
            for (const QString &part : std::as_const(continuation)) {
                if (part.isEmpty())
                    folded += QLatin1Char('\n');
                else
                    folded += (folded.isEmpty() || folded.endsWith(QLatin1Char('\n')) ? QString()
                                                                                      : QStringLiteral(" ")) +
                              part;
            }
            fields.insert(key, folded);
        } else if (value.isEmpty() && !continuation.isEmpty() &&
                   std::all_of(continuation.cbegin(), continuation.cend(), [](const QString &item) {
                       return item.isEmpty() || item.startsWith(QLatin1Char('-'));
                   })) {
            continuation.removeAll(QString());
            fields.insert(key, blockList(continuation));
        } else {
            continuation.prepend(value);
            continuation.removeAll(QString());
            fields.insert(key, unquote(continuation.join(QLatin1Char(' '))));
        }
    }
    return fields;
}

} // namespace

Result<FrontMatter> FrontMatter::parse(const QString &path, const QByteArray &bytes)
{
    using R = Result<FrontMatter>;
    QString text = QString::fromUtf8(bytes);
    if (text.startsWith(QChar(0xFEFF)))
        text.remove(0, 1);
    text.replace(QStringLiteral("\r\n"), QStringLiteral("\n"));
    const QStringList lines = text.split(QLatin1Char('\n'));
    if (lines.isEmpty() || lines.constFirst().trimmed() != QLatin1String("---"))
        return R::failure(tr("%1 has no front matter: it must start with a line \"---\", then name: and "
                             "description:, then \"---\"")
                              .arg(path));
    const qsizetype end = lines.indexOf(QStringLiteral("---"), 1);
    if (end < 0)
        return R::failure(tr("%1: the front matter has no closing \"---\" line").arg(path));
    FrontMatter front;
    front.m_fields = fieldsOf(lines.mid(1, end - 1));
    front.m_body = lines.mid(end + 1).join(QLatin1Char('\n')).trimmed();
    return front;
}

Result<FrontMatter> FrontMatter::parseNamed(const QString &path, const QByteArray &bytes)
{
    using R = Result<FrontMatter>;
    Result<FrontMatter> front = parse(path, bytes);
    if (!front)
        return front;
    const QString name = front->value(QStringLiteral("name"));
    if (name.isEmpty())
        return R::failure(tr("%1: the front matter has no name").arg(path));
    if (!isValidName(name))
        return R::failure(tr("%1: the name \"%2\" must be one word of letters, digits, '-', '_', '.' or ':'")
                              .arg(path, name));
    if (front->value(QStringLiteral("description")).isEmpty())
        return R::failure(tr("%1: the front matter has no description").arg(path));
    return front;
}

Result<QByteArray> FrontMatter::readFile(const QString &path, qint64 maxBytes)
{
    RegularFile::Read read = RegularFile::read(path, maxBytes);
    if (read.ok())
        return std::move(read.bytes);
    return Result<QByteArray>::failure(
        read.problem == RegularFile::Problem::TooLarge
            ? tr("%1 is larger than %2 KiB and is not offered").arg(path).arg(maxBytes / 1024)
            : read.error);
}

bool FrontMatter::isValidName(const QString &name)
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$"));
    return pattern.match(name).hasMatch();
}

QStringList FrontMatter::list(const QString &key) const
{
    QString text = value(key);
    if (text.startsWith(QLatin1Char('[')) && text.endsWith(QLatin1Char(']')))
        text = text.mid(1, text.size() - 2);
    QStringList words;
    for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QString word = unquote(part.trimmed());
        if (!word.isEmpty())
            words.append(word);
    }
    return words;
}

} // namespace keen
