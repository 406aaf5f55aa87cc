#!/usr/bin/env bash
# Builds dist/fastdesk-<version>-macos-<arch>.dmg on macOS from the project's environment:
#   dist/fastdesk.app   (PyInstaller BUNDLE from packaging/fastdesk.spec; Info.plist is generated there)
#   the .dmg            holds fastdesk.app and a link to /Applications (drag to install)
#
# Usage: packaging/macos/build-dmg.sh      (with .venv active, or .venv/ present; PYTHON=... overrides)
# The app is ad-hoc signed, not notarized: on first start, right-click > Open (see docs/packaging.md).
set -euo pipefail
cd "$(dirname "$0")/../.."

[ "$(uname -s)" = Darwin ] || { echo "build-dmg: run this on macOS" >&2; exit 2; }
if [ -n "${PYTHON:-}" ]; then
  PY="$PYTHON"
elif [ -n "${VIRTUAL_ENV:-}" ]; then
  PY="$VIRTUAL_ENV/bin/python"
elif [ -x .venv/bin/python ]; then
  PY=".venv/bin/python"
else
  echo "build-dmg: no project environment (activate .venv or set PYTHON)" >&2
  exit 2
fi

VERSION="$("$PY" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')"
ARCH="$(uname -m)"  # arm64 or x86_64: PyInstaller builds for the running architecture
APP="dist/fastdesk.app"
DMG="dist/fastdesk-${VERSION}-macos-${ARCH}.dmg"
STAGE="build/dmg"

"$PY" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath dist --workpath build/pyinstaller packaging/fastdesk.spec
"$APP/Contents/MacOS/fastdesk" --version >/dev/null  # the bundle starts at all

# PyInstaller signs each binary ad hoc but not the bundle as a whole; seal it so that macOS
# reports "unidentified developer" (Open from the context menu) instead of "damaged".
codesign --force --deep --sign - "$APP"
codesign --verify --deep --strict "$APP"

rm -rf "$STAGE" "$DMG"
mkdir -p "$STAGE"
cp -R "$APP" "$STAGE/"
ln -s /Applications "$STAGE/Applications"
hdiutil create -volname "fastdesk $VERSION" -srcfolder "$STAGE" -ov -format UDZO "$DMG"
echo "build-dmg: $DMG ($(du -h "$DMG" | cut -f1))" >&2
