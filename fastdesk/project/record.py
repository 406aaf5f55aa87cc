"""What fastdesk last wrote to each target file (``.fastdesk/written.json`` at the project root).

Why: a translator may fix ``guide.fr.md`` by hand. To take that in block by block, fastdesk must
know what the file held when it wrote it, per block: the difference is the translator's work.
Sources' sidecars hold the review; this file holds the written text and its block spans.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from fastdesk.config.fileio import (
    MAX_DOCUMENT_STATE_BYTES,
    BrokenFile,
    FileError,
    atomic_write_text,
    has_lone_surrogate,
    load_json,
    set_aside,
)
from fastdesk.document.target import TargetView
from fastdesk.project.confine import within

__all__ = ["RECORD_PATH", "Written", "WrittenRecord"]

log = logging.getLogger("fastdesk.project")

RECORD_PATH = Path(".fastdesk") / "written.json"
_VERSION = 1


@dataclass(frozen=True)
class Written:
    """One target as written: its text cut into (block id, start, end) spans, and the
    version of the house style its translations followed (None: not recorded)."""

    view: TargetView
    style: str | None = None

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "text": self.view.text,
            "spans": [[b, e - s] for b, s, e in self.view.spans],
        }
        if self.style is not None:
            out["style"] = self.style
        return out

    @classmethod
    def from_json(cls, data: object) -> Written | None:
        if not isinstance(data, dict) or not isinstance(data.get("text"), str):
            return None
        spans, pos = [], 0
        for item in data.get("spans", ()):
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[1], int)):
                return None
            spans.append((str(item[0]), pos, pos + item[1]))
            pos += item[1]
        if pos != len(data["text"]):
            return None
        style = data.get("style")
        return cls(
            TargetView(data["text"], tuple(spans), frozenset()),
            style if isinstance(style, str) else None,
        )


class WrittenRecord:
    """Target path (relative, posix) → what was written there; saved once per run."""

    def __init__(self, root: Path) -> None:
        self.path = root / RECORD_PATH
        self._targets: dict[str, object] = {}
        self.dirty = False
        # a record that is a symlink (or in a folder that is one) out of the project is
        # neither read nor written: the run goes on without it
        self.inside = within(root, self.path)
        if not self.inside:
            return
        try:
            data = load_json(self.path, MAX_DOCUMENT_STATE_BYTES)
            if has_lone_surrogate(data):
                raise BrokenFile(self.path, "holds text that is not Unicode (a lone surrogate)")
        except FileNotFoundError:
            return
        except BrokenFile as exc:
            kept = set_aside(self.path)
            log.warning("%s could not be used (%s); kept as %s", self.path, exc.detail, kept)
            return
        except FileError as exc:
            log.warning("%s could not be read (%s); this run goes without it", self.path, exc)
            self.inside = False  # not ours to write over either
            return
        if isinstance(data, dict) and data.get("version") == _VERSION:
            targets = data.get("targets")
            if isinstance(targets, dict):
                self._targets = targets

    def get(self, target: str) -> Written | None:
        return Written.from_json(self._targets.get(target))

    def put(self, target: str, view: TargetView, style: str | None = None) -> None:
        self._targets[target] = Written(view, style).to_json()
        self.dirty = True

    def save(self) -> None:
        if not self.dirty or not self.inside:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = {"version": _VERSION, "app": "fastdesk", "targets": self._targets}
        atomic_write_text(self.path, json.dumps(payload, ensure_ascii=False, indent=0) + "\n")
        self.dirty = False
