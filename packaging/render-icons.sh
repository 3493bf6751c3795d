#!/bin/sh
# Renders the application icon (resources/keen-desktop.svg) to the hicolor PNG sizes the package installs.
# Run after changing the SVG (needs rsvg-convert, package librsvg2-bin); the PNGs are checked in.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
for size in 16 22 24 32 48 64 128 256; do
    dir="$root/resources/hicolor/${size}x${size}/apps"
    mkdir -p "$dir"
    rsvg-convert -w "$size" -h "$size" "$root/resources/keen-desktop.svg" -o "$dir/io.github.keen.KeenDesktop.png"
done
