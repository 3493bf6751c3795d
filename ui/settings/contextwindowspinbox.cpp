#include "settings/contextwindowspinbox.h"

#include <algorithm>

namespace keen {

ContextWindowSpinBox::ContextWindowSpinBox(QWidget *parent)
    : QSpinBox(parent)
{
    setRange(1024, 100'000'000);
    setSingleStep(1024);
    setGroupSeparatorShown(true);
    setSuffix(tr(" tokens"));
    setToolTip(tr("How many tokens the model can take in. For a local server, the context size it was "
                  "started with (llama.cpp -c, Ollama's context length)"));
}

ContextWindowSpinBox::~ContextWindowSpinBox() = default;

void ContextWindowSpinBox::setWindow(qint64 tokens)
{
    setValue(int(std::clamp<qint64>(tokens, minimum(), maximum())));
}

} // namespace keen

#include "moc_contextwindowspinbox.cpp"
