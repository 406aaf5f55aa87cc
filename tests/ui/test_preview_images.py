"""Images in the rendered target: a device, a named pipe or a huge file gets a placeholder at
once; a real image next to the document is shown."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QImage, QTextDocument

from fastdesk.ui.panes.images import PLACEHOLDER_SIZE
from fastdesk.ui.panes.preview import TargetPreview
from fastdesk.ui.panes.render import segment
from tests.ui.test_ui_panes import settle

IMAGE = QTextDocument.ResourceType.ImageResource.value


def load(preview: TargetPreview, url: QUrl) -> QImage:
    """loadResource in a thread with a deadline: a blocking read fails the test, not the run."""
    out: list[object] = []
    worker = threading.Thread(target=lambda: out.append(preview.loadResource(IMAGE, url)))
    worker.daemon = True
    worker.start()
    worker.join(10)
    assert out, "loading the image blocked"
    image = out[0]
    assert isinstance(image, QImage)
    return image


def is_placeholder(image: QImage) -> bool:
    return (image.width(), image.height()) == PLACEHOLDER_SIZE


def test_a_device_a_pipe_and_a_huge_file_get_a_placeholder(qtbot, tmp_path: Path) -> None:
    preview = TargetPreview()
    qtbot.addWidget(preview)
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.png"
    with huge.open("wb") as f:
        f.truncate(64 * 1024 * 1024)  # sparse: larger than MAX_IMAGE_BYTES, costs no disk
    for path in ("/dev/zero", str(fifo), str(huge), str(tmp_path / "missing.png")):
        assert is_placeholder(load(preview, QUrl.fromLocalFile(path))), path


def test_a_relative_image_is_read_from_the_documents_folder(qtbot, tmp_path: Path) -> None:
    picture = QImage(7, 5, QImage.Format.Format_RGB32)
    picture.fill(0x336699)
    assert picture.save(str(tmp_path / "pic.png"))
    (tmp_path / "not-an-image.png").write_text("hello", encoding="utf-8")
    preview = TargetPreview()
    qtbot.addWidget(preview)
    preview.image_folder = tmp_path
    shown = load(preview, QUrl("pic.png"))
    assert (shown.width(), shown.height()) == (7, 5)
    assert is_placeholder(load(preview, QUrl("not-an-image.png")))


def test_a_document_naming_dev_zero_renders_without_reading_it(qtbot) -> None:
    preview = TargetPreview()
    qtbot.addWidget(preview)
    preview.want([segment("b0", "Before ![z](/dev/zero) after.\n")])
    settle(preview, qtbot)
    assert "Before" in preview.toPlainText() and "after." in preview.toPlainText()
    image = preview.document().resource(IMAGE, QUrl("/dev/zero"))
    assert isinstance(image, QImage) and is_placeholder(image)
