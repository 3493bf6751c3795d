#!/bin/sh
# Unpacks the built keen-desktop_<version>_<arch>.deb into a temporary root (dpkg-deb -x, as dpkg -x does) and
# checks what a person installing it gets: the binary (which runs), the menu entry, the AppStream metainfo,
# the icons, the translations, the Debian docs and computed Depends; and lintian's verdict.
#   sh check-deb.sh <folder holding the .deb> <version>
set -eu
dir=$1
version=$2
arch=$(dpkg --print-architecture)
deb="$dir/keen-desktop_${version}_${arch}.deb"
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -f "$deb" ] || fail "$deb was not built"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg-deb -x "$deb" "$root"

for file in \
    usr/bin/keen-desktop \
    usr/libexec/keen-desktop/keen-desktop-window \
    usr/libexec/keen-desktop/libkeen-keychain.so \
    usr/share/applications/io.github.keen.KeenDesktop.desktop \
    usr/share/metainfo/io.github.keen.KeenDesktop.metainfo.xml \
    usr/share/icons/hicolor/scalable/apps/io.github.keen.KeenDesktop.svg \
    usr/share/keen-desktop/translations/keen-desktop_de.qm \
    usr/share/man/man1/keen-desktop.1.gz \
    usr/share/doc/keen-desktop/copyright \
    usr/share/doc/keen-desktop/changelog.gz; do
    [ -s "$root/$file" ] || fail "$file is missing or empty"
done
for size in 16 22 24 32 48 64 128 256; do
    png="$root/usr/share/icons/hicolor/${size}x${size}/apps/io.github.keen.KeenDesktop.png"
    [ -s "$png" ] || fail "no ${size}x${size} icon"
    # PNG signature, then the IHDR chunk's width and height (big-endian) at bytes 16..23.
    header=$(od -An -tu1 -N24 "$png" | tr -s ' \n' ' ')
    case "$header" in " 137 80 78 71 13 10 26 10 "*) ;; *) fail "$png is not a PNG" ;; esac
    dims=$(od -An -tu1 -j16 -N8 "$png" | awk '{print $3 * 256 + $4 "x" $7 * 256 + $8}')
    [ "$dims" = "${size}x${size}" ] || fail "$png is $dims, not ${size}x${size}"
done
[ -x "$root/usr/bin/keen-desktop" ] || fail "the binary is not executable"
[ -x "$root/usr/libexec/keen-desktop/keen-desktop-window" ] || fail "the window program is not executable"
# Nothing outside /usr, nothing from the build or test tree.
unexpected=$(cd "$root" && find . -mindepth 1 -maxdepth 1 ! -name usr)
[ -z "$unexpected" ] || fail "files outside /usr: $unexpected"
if find "$root" -name 'keen_tst_*' -o -name '*.a' | grep -q .; then fail "test binaries or static libraries packaged"; fi

# The installed binary runs from where it was unpacked (its libraries are the system's).
out=$("$root/usr/bin/keen-desktop" --version)
echo "$out" | grep -q "$version" || fail "keen-desktop --version printed: $out"
# Not a headless command: keen-desktop hands it to the window program it finds in libexec, which refuses the
# unknown flag with the usage (proof that it was found and started; no display needed for that).
rc=0; out=$(QT_QPA_PLATFORM=offscreen "$root/usr/bin/keen-desktop" --no-such-flag 2>&1) || rc=$?
[ "$rc" = 1 ] && echo "$out" | grep -q "unknown flag --no-such-flag" \
    || fail "keen-desktop did not start the window program (exit $rc): $out"
# libgit2 and QtKeychain are opened on first use, not linked: each start of the command line would pay for
# loading them and the libraries they bring (docs/PERFORMANCE.md).
needed=$(objdump -p "$root/usr/bin/keen-desktop" | awk '/NEEDED/ {print $2}')
if echo "$needed" | grep -q -e libgit2 -e keychain; then fail "keen-desktop links what it opens on first use: $needed"; fi
# The installed keen-desktop finds its keychain module in libexec: with a session bus address that leads
# nowhere, the key lookup reports QtKeychain's own failure, not a missing module.
rc=0; out=$(cd "$root" && env -u OPENAI_API_KEY DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent \
    KEEN_HOME="$root/home" "$root/usr/bin/keen-desktop" run --provider openai --model m hi 2>&1) || rc=$?
[ "$rc" = 1 ] && echo "$out" | grep -q "The system keychain could not be used" \
    || fail "the key lookup did not reach the keychain (exit $rc): $out"
if echo "$out" | grep -q "keychain module"; then fail "the installed keychain module was not found: $out"; fi
desktop-file-validate "$root/usr/share/applications/io.github.keen.KeenDesktop.desktop"
grep -q '^Exec=keen-desktop' "$root/usr/share/applications/io.github.keen.KeenDesktop.desktop" \
    || fail "the menu entry does not start keen-desktop"

# Control fields: name, version, architecture, and Depends computed from the binary's libraries.
[ "$(dpkg-deb -f "$deb" Package)" = keen-desktop ] || fail "wrong Package"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "wrong Version"
[ "$(dpkg-deb -f "$deb" Architecture)" = "$arch" ] || fail "wrong Architecture"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libc6 libqt6core6 libqt6widgets6 libqt6network6 libqt6dbus6 libqt6keychain libgit2 qt6-qpa-plugins libqt6sql6-sqlite; do
    echo "$depends" | grep -q "$lib" || fail "Depends lacks $lib: $depends"
done
recommends=$(dpkg-deb -f "$deb" Recommends)
echo "$recommends" | grep -q qt6-translations-l10n || fail "Recommends lacks qt6-translations-l10n: $recommends"

# Debian's own package checks: no error and no warning (informational tags such as hardening-no-bindnow are
# left to a distribution's build flags).
command -v lintian >/dev/null || fail "lintian is not installed (sh packaging/install-deps.sh installs it)"
rc=0; out=$(lintian --fail-on error,warning "$deb" 2>&1) || rc=$?
[ "$rc" = 0 ] || fail "lintian found errors or warnings: $out"
echo "keen-desktop_${version}_${arch}.deb: contents, Depends and lintian as expected"
