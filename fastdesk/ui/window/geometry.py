"""The window's geometry as the settings keep it (``Settings.window``): its size and place, the
state of its toolbar and docks, and the panes' splitter, each as base64 text; a value that does
not decode is passed over (what Qt starts with stays). ("Layout" is a docs project's folders:
fastdesk.project.layout.)"""

from __future__ import annotations

import base64
from collections.abc import Mapping

from PySide6.QtCore import QByteArray
from PySide6.QtWidgets import QMainWindow, QSplitter


def saved_geometry(window: QMainWindow, splitter: QSplitter) -> dict[str, str]:
    return {
        "geometry": _b64(window.saveGeometry()),
        "state": _b64(window.saveState()),
        "splitter": _b64(splitter.saveState()),
    }


def restore_geometry(window: QMainWindow, splitter: QSplitter, saved: Mapping[str, str]) -> None:
    geometry = _unb64(saved.get("geometry"))
    if geometry is not None:
        window.restoreGeometry(geometry)
    state = _unb64(saved.get("state"))
    if state is not None:
        window.restoreState(state)
    panes = _unb64(saved.get("splitter"))
    if panes is not None:
        splitter.restoreState(panes)


def _b64(data: QByteArray) -> str:
    return base64.b64encode(bytes(data.data())).decode("ascii")


def _unb64(text: str | None) -> QByteArray | None:
    if not text:
        return None
    try:
        return QByteArray(base64.b64decode(text.encode("ascii"), validate=True))
    except (ValueError, UnicodeEncodeError):
        return None
