#include "loop/autocompactiongate.h"

#include "loop/contextbudget.h"

namespace keen {

bool AutoCompactionGate::preconditionsHold() const
{
    if (oneShot || disabled || !newToolTurn || suppressed)
        return false;
    return !(unreconciledPending && providerWaitsForPending);
}

bool AutoCompactionGate::allows() const
{
    return preconditionsHold() && ContextBudget::shouldAutoCompact(estimatedTokens, budget, thresholdPercent);
}

} // namespace keen
