"""Images in the rendered target: read only when they are regular files of a sane size.

A document may name any path as an image (``![z](/dev/zero)``, a named pipe, a huge file).
Qt's own loader would read it on the GUI thread, without limit or forever; so the preview asks
:func:`fastdesk.config.fileio.regular_file_problem` first and shows a placeholder with the
reason instead.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRect, Qt, QUrl
from PySide6.QtGui import QColor, QImage, QPainter

from fastdesk.config.fileio import MAX_IMAGE_BYTES, FileError, read_file_bytes, regular_file_problem

PLACEHOLDER_SIZE = (260, 28)


def local_image_path(name: QUrl, folder: Path | None) -> Path | None:
    """The file an image URL names on this computer (relative ones from ``folder``), or None
    for a URL that is not a local file (http: Qt does not fetch those)."""
    if name.isLocalFile():
        return Path(name.toLocalFile())
    if name.scheme() or not name.path():
        return None
    path = Path(name.path())
    if not path.is_absolute() and folder is not None:
        path = folder / path
    return path


def load_image(path: Path) -> QImage:
    """The image at ``path``, or a placeholder that says why it is not shown."""
    problem = regular_file_problem(path, MAX_IMAGE_BYTES)
    if problem is not None:
        return placeholder(f"{path.name}: {problem}")
    try:
        data = read_file_bytes(path, MAX_IMAGE_BYTES)
    except (OSError, FileError) as exc:
        return placeholder(f"{path.name}: {getattr(exc, 'reason', None) or exc}")
    image = QImage.fromData(data)
    return image if not image.isNull() else placeholder(f"{path.name}: not an image")


def placeholder(text: str) -> QImage:
    """A small grey box with ``text`` in it, where an image could not be shown."""
    width, height = PLACEHOLDER_SIZE
    image = QImage(width, height, QImage.Format.Format_ARGB32)
    image.fill(QColor(0, 0, 0, 0))
    painter = QPainter(image)
    try:
        painter.setPen(QColor("#888888"))
        painter.drawRect(0, 0, width - 1, height - 1)
        painter.drawText(
            QRect(6, 0, width - 12, height),
            int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft),
            painter.fontMetrics().elidedText(
                f"image not shown: {text}", Qt.TextElideMode.ElideRight, width - 12
            ),
        )
    finally:
        painter.end()
    return image
