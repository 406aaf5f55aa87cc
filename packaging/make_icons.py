"""Render the app icon (resources/icons/fastdesk.svg) to every size Linux, Windows and macOS want.

Qt rasterises the SVG (PySide6 is already a dependency); the .ico and .icns containers are
written here with `struct` because both simply wrap PNG images, and Qt's writers store one
image per file. Run after editing the SVG, then commit the results:

    .venv/bin/python packaging/make_icons.py
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"
SVG = ICONS / "fastdesk.svg"

# Linux hicolor theme sizes (also the window icon sizes Qt picks from).
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
# Windows: Explorer and the taskbar use 16..256; 256 is the largest an .ico holds.
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# macOS: PNG-bearing icns types (macOS 10.7+), type -> pixel size.
ICNS_TYPES = (
    ("icp4", 16),
    ("icp5", 32),
    ("icp6", 64),
    ("ic07", 128),
    ("ic08", 256),
    ("ic09", 512),
    ("ic10", 1024),  # 512@2x
    ("ic11", 32),  # 16@2x
    ("ic12", 64),  # 32@2x
    ("ic13", 256),  # 128@2x
    ("ic14", 512),  # 256@2x
)


def render_png(svg: Path, size: int) -> bytes:
    """The SVG drawn into a size x size transparent square, as PNG bytes."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(0)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """An ICO file holding one PNG per size (Windows Vista+ reads PNG entries)."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries, blobs = [], []
    for size in sizes:
        data = pngs[size]
        dim = 0 if size >= 256 else size  # 0 means 256 in an ICONDIRENTRY
        entries.append(struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(data), offset))
        blobs.append(data)
        offset += len(data)
    return header + b"".join(entries) + b"".join(blobs)


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    """An ICNS file: 'icns' + total length, then (type, length, PNG) chunks."""
    chunks = [
        kind.encode("ascii") + struct.pack(">I", 8 + len(pngs[size])) + pngs[size]
        for kind, size in ICNS_TYPES
    ]
    body = b"".join(chunks)
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication([])  # noqa: F841 - Qt needs one alive
    sizes = sorted(set(PNG_SIZES) | set(ICO_SIZES) | {size for _, size in ICNS_TYPES})
    pngs = {size: render_png(SVG, size) for size in sizes}
    for size in PNG_SIZES:
        (ICONS / f"fastdesk-{size}.png").write_bytes(pngs[size])
    (ICONS / "fastdesk.ico").write_bytes(ico_bytes({s: pngs[s] for s in ICO_SIZES}))
    (ICONS / "fastdesk.icns").write_bytes(icns_bytes(pngs))
    print(f"wrote {len(PNG_SIZES)} PNGs, fastdesk.ico and fastdesk.icns to {ICONS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
