#!/usr/bin/env bash
# Fetches the photographs the image apps run on into data/photos/: astronaut.png, coffee.png,
# chelsea.png and camera.png (public domain / CC0) from Debian's python3-skimage package,
# extracted without installing it or its dependencies. Does nothing when they are present;
# where the package registry can't be reached the apps fall back to a generated test card.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

dest=data/photos
photos=(astronaut.png coffee.png chelsea.png camera.png)
have_all=1
for p in "${photos[@]}"; do [[ -f "$dest/$p" ]] || have_all=0; done
if [[ $have_all -eq 1 ]]; then
    echo "fetch-photos: all ${#photos[@]} photographs present in $dest"
    exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/loom-photos.XXXXXX")
trap 'rm -rf "$work"' EXIT
if ! (cd "$work" && apt-get download python3-skimage >/dev/null 2>&1); then
    echo "fetch-photos: could not download python3-skimage; image apps will use a generated image" >&2
    exit 0
fi
dpkg -x "$work"/python3-skimage_*.deb "$work/x"
mkdir -p "$dest"
for p in "${photos[@]}"; do
    cp "$work/x/usr/lib/python3/dist-packages/skimage/data/$p" "$dest/$p"
done
echo "fetch-photos: copied ${photos[*]} into $dest"
