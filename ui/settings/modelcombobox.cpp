#include "settings/modelcombobox.h"

#include <QAbstractItemView>
#include <QCompleter>
#include <QKeyEvent>

namespace keen {

ModelComboBox::ModelComboBox(QWidget *parent)
    : QComboBox(parent)
{
    setEditable(true);
    // A typed name is used, not added to the list: the list stays the registry's (and the server's) models.
    setInsertPolicy(QComboBox::NoInsert);
    // The completer's case sensitivity is also how Enter matches the text to an item: "GPT-4.1" must not
    // become "gpt-4.1".
    completer()->setCompletionMode(QCompleter::PopupCompletion);
    completer()->setCaseSensitivity(Qt::CaseSensitive);
}

ModelComboBox::~ModelComboBox() = default;

void ModelComboBox::keyPressEvent(QKeyEvent *event)
{
    // The completions' popup takes its own Esc (it closes); the box's list is a popup of its own too.
    if (m_escapeCancels && event->key() == Qt::Key_Escape && event->modifiers() == Qt::NoModifier &&
        !view()->isVisible() && !completer()->popup()->isVisible()) {
        event->accept();
        Q_EMIT editCancelled();
        return;
    }
    QComboBox::keyPressEvent(event);
}

} // namespace keen

#include "moc_modelcombobox.cpp"
