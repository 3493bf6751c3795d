#!/bin/sh
# Installs the built .deb on a fresh, minimal Debian 12 made with debootstrap, the way a person would
# (`apt install ./keen-desktop_*.deb`), and checks what they get: Depends resolve from the archive alone,
# `keen-desktop --version` runs, the menu entry and metainfo are there, the window starts (offscreen) and
# `sessions` works. On demand, not in ctest: it needs root, debootstrap and the Debian archive.
#   sudo sh packaging/check-fresh-install.sh build/keen-desktop_0.1.0_amd64.deb [ROOT]
# ROOT (default /var/tmp/keen-fresh-bookworm) is made once and reused; delete it for a truly fresh run.
set -eu
deb=$(realpath "$1")
root=${2:-/var/tmp/keen-fresh-bookworm}
mirror=$(sed -n 's/^URIs: *//p; s/^deb \([^ ]*\) bookworm main.*/\1/p' /etc/apt/sources.list.d/debian.sources \
    /etc/apt/sources.list 2>/dev/null | head -n 1)
fail() { echo "FAIL: $*" >&2; exit 1; }

[ -f "$deb" ] || fail "$deb does not exist (build it with: cd build && cpack -G DEB)"
command -v debootstrap >/dev/null || apt-get install -y debootstrap
if [ ! -x "$root/usr/bin/apt-get" ]; then
    echo "Making a minimal Debian 12 in $root (a few minutes)..."
    debootstrap --variant=minbase bookworm "$root" ${mirror:+"$mirror"} >"$root.debootstrap.log" 2>&1 ||
        fail "debootstrap failed, see $root.debootstrap.log"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/tmp/keen-desktop.deb"
mount -t proc proc "$root/proc"
trap 'umount "$root/proc"' EXIT

chroot "$root" /bin/sh -eu -c '
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q /tmp/keen-desktop.deb >/tmp/keen-install.log 2>&1 ||
    { tail -n 20 /tmp/keen-install.log; echo "FAIL: apt install of the .deb" >&2; exit 1; }
keen-desktop --version
test -s /usr/share/applications/io.github.keen.KeenDesktop.desktop
grep -q "^Exec=keen-desktop" /usr/share/applications/io.github.keen.KeenDesktop.desktop
test -s /usr/share/metainfo/io.github.keen.KeenDesktop.metainfo.xml
mkdir -p /tmp/home && cd /tmp/home
# The window keeps running until the timeout ends it (exit 124); anything else is a failed start.
rc=0; HOME=/tmp/home QT_QPA_PLATFORM=offscreen timeout 5 keen-desktop >/tmp/keen-window.log 2>&1 || rc=$?
[ "$rc" = 124 ] || { cat /tmp/keen-window.log; echo "FAIL: the window exited with $rc" >&2; exit 1; }
HOME=/tmp/home keen-desktop sessions
' || fail "the installed package does not work in $root"
echo "OK: $(basename "$deb") installs and runs on a fresh Debian 12"
