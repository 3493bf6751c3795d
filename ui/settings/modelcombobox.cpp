#include "settings/modelcombobox.h"

#include <QCompleter>

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

} // namespace keen

#include "moc_modelcombobox.cpp"
