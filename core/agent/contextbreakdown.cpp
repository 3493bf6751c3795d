#include "agent/contextbreakdown.h"

#include <QCoreApplication>

namespace keen {

QString ContextBreakdown::note() const
{
    QString text;
    if (anchoredToProvider)
        text =
            QCoreApplication::translate("ContextBreakdown", "Anchored to provider-reported input tokens; "
                                                            "per-category splits are heuristic estimates.");
    else if (reportedEarlier)
        text = QCoreApplication::translate("ContextBreakdown",
                                           "Estimated (chars/3 heuristic) until the provider's next reply "
                                           "reports the input tokens of the conversation as it is now.");
    else
        text = QCoreApplication::translate("ContextBreakdown",
                                           "Estimated (chars/3 heuristic); no provider-reported usage yet.");
    if (contextWindow > 0 && percentOfWindow(totalTokens) >= 70.0)
        text += QLatin1Char('\n') +
                QCoreApplication::translate("ContextBreakdown",
                                            "Context is nearly full: consider compacting (/compact).");
    return text;
}

} // namespace keen
