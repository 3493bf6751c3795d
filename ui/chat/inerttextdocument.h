#pragma once

#include <QTextDocument>

namespace keen {

// The document a row of the conversation is laid out in. It never loads a resource: an image in a reply
// (`![x](/dev/zero)`, an `<img>` tag, a picture in a file the model read out) would otherwise be read from
// the local disk on the GUI thread while the row is laid out; /dev/zero grew the app by a gigabyte a
// second (found when tried), a FIFO would hang it, and any file could be read. A picture shows as a small
// framed square.
class InertTextDocument final : public QTextDocument
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InertTextDocument)

public:
    explicit InertTextDocument(QObject *parent = nullptr);
    ~InertTextDocument() override;

protected:
    QVariant loadResource(int type, const QUrl &name) override;
};

} // namespace keen
