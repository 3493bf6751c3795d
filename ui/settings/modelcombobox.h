#pragma once

#include <QComboBox>

namespace keen {

// An editable model picker whose typed name is taken exactly as typed: QComboBox's default completer fills
// the field inline with the first listed name that starts with the text, case-insensitively, so "gpt-4" and
// Enter chose "gpt-4.1". Here matches are offered in a popup, case-sensitively, and only a match the person
// picks replaces the text. The toolbar, the settings dialog and the first-run setup use it.
class ModelComboBox final : public QComboBox
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ModelComboBox)

public:
    explicit ModelComboBox(QWidget *parent = nullptr);
    ~ModelComboBox() override;

    // Esc (its completions closed) emits editCancelled() instead of going on to the parent: the toolbar's box
    // puts the model in use back. In a dialog it stays off, so Esc closes the dialog.
    void setEscapeCancelsEdit(bool cancels) { m_escapeCancels = cancels; }

Q_SIGNALS:
    void editCancelled();

protected:
    void keyPressEvent(QKeyEvent *event) override;

private:
    bool m_escapeCancels = false;
};

} // namespace keen
