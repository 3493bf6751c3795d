#include "providers/localserverhint.h"

#include "providers/providertable.h"

namespace keen {

bool LocalServerHint::isLocalHost(const QUrl &url)
{
    const QString host = url.host().toLower();
    return host == QLatin1String("localhost") || host.endsWith(QLatin1String(".localhost")) ||
           host.startsWith(QLatin1String("127.")) || host == QLatin1String("::1") ||
           host == QLatin1String("0.0.0.0");
}

QString LocalServerHint::connectionRefused(const QUrl &url)
{
    const QString address =
        url.adjusted(QUrl::RemoveUserInfo | QUrl::RemovePath | QUrl::RemoveQuery | QUrl::RemoveFragment)
            .toString();
    QString server;
    for (const ProviderDescriptor &preset : ProviderTable::all()) {
        const QUrl presetUrl(preset.defaultBaseUrl);
        if (isLocalHost(presetUrl) && presetUrl.port() == url.port())
            server = preset.name;
    }
    if (!server.isEmpty())
        return tr("connection refused at %1: is %2 running?").arg(address, server);
    return tr("connection refused at %1: is the local server running on that port?").arg(address);
}

} // namespace keen
