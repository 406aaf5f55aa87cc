#!/usr/bin/env bash
# Builds the Linux packages from the project's environment:
#   dist/fastdesk/                               the PyInstaller folder (packaging/fastdesk.spec)
#   dist/fastdesk_<version>_amd64.deb            app in /opt/fastdesk, /usr/bin/fastdesk, menu entry, icons
#   dist/fastdesk-<version>-linux-x86_64.tar.gz  the same folder, to unpack anywhere
#
# Usage: packaging/build-linux.sh            (with .venv active, or .venv/ present; PYTHON=... overrides)
# Needs: PyInstaller in that environment, binutils (objdump), dpkg-deb, zstd.
# Set SOURCE_DATE_EPOCH to pin the timestamps in the archives (default: the last commit's time).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

if [ -n "${PYTHON:-}" ]; then
  PY="$PYTHON"
elif [ -n "${VIRTUAL_ENV:-}" ]; then
  PY="$VIRTUAL_ENV/bin/python"
elif [ -x .venv/bin/python ]; then
  PY="$ROOT/.venv/bin/python"
else
  echo "build-linux: no project environment (activate .venv or set PYTHON)" >&2
  exit 2
fi
for tool in objdump dpkg-deb zstd; do
  command -v "$tool" >/dev/null || { echo "build-linux: $tool is missing (apt-get install binutils dpkg zstd)" >&2; exit 2; }
done
ARCH="$(dpkg --print-architecture)"
[ "$ARCH" = amd64 ] || { echo "build-linux: only amd64 is supported (this machine: $ARCH)" >&2; exit 2; }

VERSION="$("$PY" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')"
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"
DEB="dist/fastdesk_${VERSION}_${ARCH}.deb"
TGZ="dist/fastdesk-${VERSION}-linux-x86_64.tar.gz"
STAGE="build/deb"
START=$SECONDS

echo "build-linux: fastdesk $VERSION: PyInstaller" >&2
"$PY" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath dist --workpath build/pyinstaller packaging/fastdesk.spec
APP="dist/fastdesk"
"$APP/fastdesk" --version >/dev/null  # the bundle starts at all

# --- Depends: every library the bundle links but does not carry must come from a package ------
# The bundle carries Qt, xcb-*, xkbcommon, fontconfig, freetype, glib, dbus... (PyInstaller copies
# them from the build machine). What stays outside is glibc, the GL/EGL driver stack, libxcb and
# the Wayland client libraries: map each to its Debian package; an unknown one stops the build.
declare -A PACKAGE_OF=(
  [ld-linux-x86-64.so.2]=libc6 [libc.so.6]=libc6 [libm.so.6]=libc6 [libdl.so.2]=libc6
  [libpthread.so.0]=libc6 [librt.so.1]=libc6 [libutil.so.1]=libc6 [libresolv.so.2]=libc6
  [libEGL.so.1]=libegl1 [libGL.so.1]=libgl1 [libOpenGL.so.0]=libopengl0 [libGLX.so.0]=libglx0
  [libxcb.so.1]=libxcb1 [libwayland-client.so.0]=libwayland-client0
  [libwayland-cursor.so.0]=libwayland-cursor0 [libwayland-egl.so.1]=libwayland-egl1
)
mapfile -t ELVES < <(find "$APP" -type f \( -name '*.so*' -o -name fastdesk \) | sort)
carried="$(find "$APP" \( -type f -o -type l \) -name '*.so*' -printf '%f\n' | sort -u)"
needed="$(for f in "${ELVES[@]}"; do objdump -p "$f" | awk '$1 == "NEEDED" {print $2}'; done | sort -u)"
declare -A DEPENDS=()
unknown=()
while read -r lib; do
  [ -z "$lib" ] && continue
  if [ -n "${PACKAGE_OF[$lib]:-}" ]; then
    DEPENDS[${PACKAGE_OF[$lib]}]=1
  else
    unknown+=("$lib")
  fi
done < <(comm -23 <(echo "$needed") <(echo "$carried"))
if [ ${#unknown[@]} -gt 0 ]; then
  echo "build-linux: the bundle needs system libraries with no known package: ${unknown[*]}" >&2
  echo "build-linux: add them to PACKAGE_OF in $0" >&2
  exit 1
fi
# glibc: the newest symbol version any carried binary asks for (libraries copied from the build
# machine may need more than the 2.34 the PySide6 wheels need).
GLIBC="$(for f in "${ELVES[@]}"; do objdump -T "$f" 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' || true; done \
  | sed 's/GLIBC_//' | sort -u -V | tail -1)"
GLIBC="$(printf '%s\n2.34\n' "$GLIBC" | sort -V | tail -1)"
unset 'DEPENDS[libc6]'
depends="libc6 (>= $GLIBC)"
# fontconfig-config: /etc/fonts for the carried libfontconfig (and, through it, a font package).
for pkg in $(printf '%s\n' "${!DEPENDS[@]}" fontconfig-config | sort -u); do
  depends="$depends, $pkg"
done

# --- the .deb tree ------------------------------------------------------------------------------
rm -rf "$STAGE"
root="$STAGE/root"
mkdir -p "$root/opt" "$root/usr/bin" "$root/usr/share/applications" "$root/usr/share/metainfo" \
  "$root/usr/share/doc/fastdesk" "$root/DEBIAN"
cp -a "$APP" "$root/opt/fastdesk"
ln -s /opt/fastdesk/fastdesk "$root/usr/bin/fastdesk"
install -m 0644 resources/fastdesk.desktop "$root/usr/share/applications/fastdesk.desktop"
install -m 0644 resources/io.github.fastdesk.Fastdesk.metainfo.xml "$root/usr/share/metainfo/"
for png in resources/icons/fastdesk-*.png; do
  size="${png##*-}"; size="${size%.png}"
  install -D -m 0644 "$png" "$root/usr/share/icons/hicolor/${size}x${size}/apps/fastdesk.png"
done
install -D -m 0644 resources/icons/fastdesk.svg "$root/usr/share/icons/hicolor/scalable/apps/fastdesk.svg"
cat > "$root/usr/share/doc/fastdesk/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: fastdesk
Comment: /opt/fastdesk/_internal carries third-party libraries under their own licences
 (Qt and PySide6: LGPL-3.0; Python: PSF-2.0; see their dist-info folders).

Files: *
Copyright: the fastdesk developers
License: MIT
EOF
chmod -R u+rwX,go+rX,go-w "$root"
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

installed_kb="$(du -sk --exclude=DEBIAN "$root" | cut -f1)"
cat > "$root/DEBIAN/control" <<EOF
Package: fastdesk
Version: $VERSION
Architecture: $ARCH
Maintainer: fastdesk developers <dev@fastdesk.invalid>
Installed-Size: $installed_kb
Depends: $depends
Section: text
Priority: optional
Description: live Markdown translation on the fastest LLM providers
 fastdesk shows a Markdown document next to its translation (or its
 plain-language rewrite) and keeps the two in step while you edit, using
 Groq, Cerebras or any OpenAI-compatible server. Includes the fastdesk
 command line (fastdesk translate, fastdesk bench, fastdesk keys).
EOF

mkdir -p dist
rm -f "$DEB" "$TGZ"
dpkg-deb -Zzstd --root-owner-group --build "$root" "$DEB" >/dev/null

# --- the tarball: fastdesk-<version>/ = the app folder + share/ for a per-user menu entry ---------
tree="$STAGE/tar/fastdesk-$VERSION"
mkdir -p "$tree"
cp -a "$APP/." "$tree/"
cp -a "$root/usr/share" "$tree/share"
rm -rf "$tree/share/doc"
tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
  -C "$STAGE/tar" -cf - "fastdesk-$VERSION" | gzip -n -6 > "$TGZ"

echo "build-linux: Depends: $depends" >&2
printf 'build-linux: %s (%s), %s (%s) in %d s\n' "$DEB" "$(du -h "$DEB" | cut -f1)" \
  "$TGZ" "$(du -h "$TGZ" | cut -f1)" "$((SECONDS - START))" >&2
