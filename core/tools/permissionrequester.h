#pragma once

#include "base/cancellationtoken.h"
#include "conversation/permissionrequest.h"

namespace keen {

// Asks for permission. Called on the worker thread; may block it until the person answers or the token is
// cancelled (then Deny). Implementations must never block the GUI thread.
class PermissionRequester
{
public:
    virtual ~PermissionRequester() = default;
    virtual PermissionDecision request(const PermissionRequest &request, const CancellationToken &cancel) = 0;
};

} // namespace keen
