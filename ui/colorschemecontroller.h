#pragma once

#include "config/settings.h"

#include <QObject>
#include <QPalette>

class QDBusVariant;

namespace keen {

// Light or dark for the whole application. "System" follows the desktop: the freedesktop appearance
// portal's color-scheme (GNOME and KDE both answer it, and say when it changes), else the platform's own
// palette. A forced scheme, or a dark desktop whose Qt theme only gives light colours, gets AppPalette's.
class ColorSchemeController final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ColorSchemeController)

public:
    enum class Preference { Unknown, Light, Dark }; // what the desktop asks for

    explicit ColorSchemeController(QObject *parent = nullptr);
    ~ColorSchemeController() override;

    // Asks the portal (asynchronously) and listens for its changes.
    void watchSystem();
    void setScheme(Settings::ColorScheme scheme);
    Settings::ColorScheme scheme() const { return m_scheme; }
    Preference systemPreference() const { return m_system; }
    bool isDark() const { return m_dark; }
    // True when AppPalette's colours are applied instead of the platform's.
    bool usesOwnPalette() const { return m_custom; }

Q_SIGNALS:
    void changed(bool dark); // the application palette changed

private Q_SLOTS:
    // org.freedesktop.portal.Settings.SettingChanged (string-based: QtDBus has no other way to connect).
    void onPortalSettingChanged(const QString &group, const QString &key, const QDBusVariant &value);

private:
    void setSystemPreference(Preference preference);
    void apply();

    QPalette m_platformPalette; // what the platform gave before this class touched anything
    Settings::ColorScheme m_scheme = Settings::ColorScheme::System;
    Preference m_system = Preference::Unknown;
    bool m_dark = false;
    bool m_custom = false; // an AppPalette is applied
};

} // namespace keen
