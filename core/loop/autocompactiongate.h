#pragma once

#include <QtGlobal>

namespace keen {

// The preconditions of a proactive automatic compaction before a request of the tool loop (S36), in one
// place. When allows() is false the request goes out unchanged.
struct AutoCompactionGate
{
    bool oneShot = false;
    bool disabled = false;
    bool newToolTurn = false; // at least one tool turn of this stream has completed
    bool suppressed = false;  // a failed or cancelled attempt on the unchanged history (S46)
    // Pending state of an earlier incomplete turn is replayed and no completed request has carried it yet.
    bool unreconciledPending = false;
    // The provider needs that pending state reconciled before compacting over it
    // (ProviderProtocol::compactionWaitsForReconciledPending).
    // In today's loop these two never refuse on their own: a tool turn completes only after the request that
    // carried the replayed state completed, which reconciles it, so by the time newToolTurn holds the state
    // is ordinary history (tst_autocompactionproviders interruptedTurnStillCompactsNextTurn). They keep S36's
    // restriction true should compaction ever be tried before a request has gone out.
    bool providerWaitsForPending = false;
    int thresholdPercent = 90; // the session's policy (issue 16); the seed's 90% by default
    qint64 estimatedTokens = 0;
    qint64 budget = 0;

    // Everything but the estimate, which the caller then only computes when needed.
    bool preconditionsHold() const;
    bool allows() const;
};

} // namespace keen
