#!/bin/sh
# Runs a test with a real Secret Service: a fresh, unlocked gnome-keyring inside the private D-Bus session that
# dbus-run-session started for it. Usage: dbus-run-session -- sh with-keyring.sh TEST [ARGS...]
XDG_DATA_HOME=$(mktemp -d)
export XDG_DATA_HOME
printf keen | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
# The daemon claims its bus name and creates the login keyring after it has forked. Under load the test used
# to start first: it found no keychain, or its call made D-Bus start a second, locked daemon. Wait (at most
# 20 s) for the name, asking the bus without activating anything, then for the collection; run the test either
# way, it reports what it sees.
has_owner() {
    dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q 'boolean true'
}
has_login() {
    dbus-send --session --print-reply --dest=org.freedesktop.secrets \
        /org/freedesktop/secrets/collection/login org.freedesktop.DBus.Properties.Get \
        string:org.freedesktop.Secret.Collection string:Locked >/dev/null 2>&1
}
tries=0
until has_owner && has_login; do
    tries=$((tries + 1))
    if [ "$tries" -ge 200 ]; then
        echo "with-keyring.sh: the login keyring did not appear within 20 s" >&2
        break
    fi
    sleep 0.1
done
"$@"
status=$?
rm -rf "$XDG_DATA_HOME"
exit $status
