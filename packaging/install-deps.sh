#!/bin/sh
# Installs the Debian packages Keen Desktop needs to build and test, only those that are missing.
# Idempotent: when everything is there it only runs dpkg-query and exits.
# clang and libclang-rt-dev (libFuzzer, the sanitizer runtimes; libclang-rt-14-dev on Debian 12) build the
# fuzz targets of tests/fuzz, which the test suite runs. lld links the test programs several times faster
# than GNU ld (CMakeLists.txt, KEEN_USE_LLD). openssl makes the certificate of tst_webfetch's https server.
set -eu
PACKAGES="cmake g++ ninja-build pkg-config qt6-base-dev libqt6sql6-sqlite qt6-svg-dev qtkeychain-qt6-dev
libgit2-dev libdtl-dev clang-format xvfb xauth desktop-file-utils appstream fonts-dejavu-core dbus gnome-keyring libgl-dev
qt6-tools-dev qt6-l10n-tools qt6-translations-l10n dpkg-dev lintian clang libclang-rt-dev lld openssl"
missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "Installing:$missing"
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
