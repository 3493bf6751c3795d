#include "colorschemecontroller.h"

#include "apppalette.h"

#include <QApplication>
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QDBusVariant>
#include <QStyle>
#include <QStyleFactory>

namespace keen {

namespace {
const QString kPortalService = QStringLiteral("org.freedesktop.portal.Desktop");
const QString kPortalPath = QStringLiteral("/org/freedesktop/portal/desktop");
const QString kPortalInterface = QStringLiteral("org.freedesktop.portal.Settings");
const QString kAppearance = QStringLiteral("org.freedesktop.appearance");
const QString kColorScheme = QStringLiteral("color-scheme");

// Read() boxes the value twice (a variant in a variant); ReadOne() and SettingChanged once.
QVariant unbox(QVariant value)
{
    while (value.canConvert<QDBusVariant>() && value.metaType() == QMetaType::fromType<QDBusVariant>())
        value = value.value<QDBusVariant>().variant();
    return value;
}

// 0: no preference, 1: prefer dark, 2: prefer light.
ColorSchemeController::Preference fromPortal(const QVariant &value)
{
    bool ok = false;
    const uint scheme = unbox(value).toUInt(&ok);
    if (!ok)
        return ColorSchemeController::Preference::Unknown;
    if (scheme == 1)
        return ColorSchemeController::Preference::Dark;
    if (scheme == 2)
        return ColorSchemeController::Preference::Light;
    return ColorSchemeController::Preference::Unknown;
}
} // namespace

ColorSchemeController::ColorSchemeController(QObject *parent)
    : QObject(parent)
    , m_platformPalette(QApplication::palette())
{
    setObjectName(QStringLiteral("colorSchemeController"));
    m_dark = AppPalette::isDark(m_platformPalette);
}

ColorSchemeController::~ColorSchemeController()
{
    if (m_custom)
        QApplication::setPalette(m_platformPalette);
}

void ColorSchemeController::watchSystem()
{
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected())
        return;
    bus.connect(kPortalService, kPortalPath, kPortalInterface, QStringLiteral("SettingChanged"), this,
                SLOT(onPortalSettingChanged(QString, QString, QDBusVariant)));
    QDBusMessage read =
        QDBusMessage::createMethodCall(kPortalService, kPortalPath, kPortalInterface, QStringLiteral("Read"));
    read << kAppearance << kColorScheme;
    // Asynchronous: a desktop without the portal must not hold up the window.
    auto *watcher = new QDBusPendingCallWatcher(bus.asyncCall(read, 3000), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher *call) {
        const QDBusPendingReply<QVariant> reply = *call;
        if (!reply.isError())
            setSystemPreference(fromPortal(reply.value()));
        call->deleteLater();
    });
}

void ColorSchemeController::onPortalSettingChanged(const QString &group, const QString &key,
                                                   const QDBusVariant &value)
{
    if (group == kAppearance && key == kColorScheme)
        setSystemPreference(fromPortal(value.variant()));
}

void ColorSchemeController::setSystemPreference(Preference preference)
{
    if (m_system == preference)
        return;
    m_system = preference;
    apply();
}

void ColorSchemeController::setScheme(Settings::ColorScheme scheme)
{
    m_scheme = scheme;
    apply();
}

void ColorSchemeController::apply()
{
    bool wantDark = AppPalette::isDark(m_platformPalette);
    if (m_scheme == Settings::ColorScheme::Dark)
        wantDark = true;
    else if (m_scheme == Settings::ColorScheme::Light)
        wantDark = false;
    else if (m_system != Preference::Unknown)
        wantDark = m_system == Preference::Dark;

    const bool platformMatches = AppPalette::isDark(m_platformPalette) == wantDark;
    if (platformMatches) {
        if (m_custom)
            QApplication::setPalette(m_platformPalette);
        m_custom = false;
    } else {
        // Some styles draw with their own colours; Fusion draws with the palette.
        const QString style = QApplication::style()->name().toLower();
        if (style != QLatin1String("fusion") && style != QLatin1String("breeze"))
            QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(wantDark ? AppPalette::dark() : AppPalette::light());
        m_custom = true;
    }
    m_dark = wantDark;
    Q_EMIT changed(m_dark);
}

} // namespace keen

#include "moc_colorschemecontroller.cpp"
