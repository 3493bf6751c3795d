#pragma once

#include "base/result.h"

#include <QCoreApplication>
#include <QHash>
#include <QString>
#include <QStringList>

namespace keen {

// The YAML front matter of a Markdown file between two "---" lines, as skills (SKILL.md) and subagent
// profiles use it: top-level `key: value` pairs with plain and quoted scalars, plain scalars continued on
// indented lines, `|` and `>` block scalars, and lists of words (`[read, bash]` or `- read` lines). Nested
// maps are skipped.
class FrontMatter
{
    Q_DECLARE_TR_FUNCTIONS(FrontMatter)

public:
    // path names the file in the errors; bytes are its UTF-8 contents (a byte order mark and CRLF line ends
    // are fine).
    static Result<FrontMatter> parse(const QString &path, const QByteArray &bytes);
    // parse(), and the name (isValidName) and description every skill and profile needs; the error names the
    // file and what is missing.
    static Result<FrontMatter> parseNamed(const QString &path, const QByteArray &bytes);
    // The bytes of a skill or profile file (a regular file of at most maxBytes: anything bigger is not
    // instructions for one task and would flood the context); the error is the catalog's warning.
    static Result<QByteArray> readFile(const QString &path, qint64 maxBytes);

    // One word of letters, digits, '-', '_', '.' or ':' (at most 64), which a slash command or a tool
    // argument can name.
    static bool isValidName(const QString &name);

    QString value(const QString &key) const { return m_fields.value(key).trimmed(); }
    bool contains(const QString &key) const { return m_fields.contains(key); }
    // A list field's words; a scalar is a list of one.
    QStringList list(const QString &key) const;
    const QString &body() const { return m_body; }

private:
    QHash<QString, QString> m_fields;
    QString m_body; // what follows the closing "---", trimmed
};

} // namespace keen
