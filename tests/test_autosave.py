"""Crash safety : unsaved source and target edits are autosaved and offered back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from fastdesk.document.blocks import parse
from fastdesk.review.autosave import (
    Autosaver,
    autosave_dir,
    autosave_key,
    discard,
    pending,
    restore,
)
from fastdesk.review.model import Review
from fastdesk.translate.events import BlockDone

TEXT = "# Title\n\nSome unsaved words.\n"


def test_keys() -> None:
    assert autosave_key(None, 3) == "untitled-3"
    a = autosave_key("/tmp/docs/guide.md")
    assert a == autosave_key("/tmp/docs/../docs/guide.md") and len(a) == 20
    assert a != autosave_key("/tmp/docs/other.md")
    with pytest.raises(ValueError):
        Autosaver("../escape")


def test_save_skips_when_nothing_changed() -> None:
    saver = Autosaver.for_document("/tmp/docs/guide.md")
    assert saver.file.parent == autosave_dir()
    assert saver.save(TEXT) is True
    stamp = saver.file.stat().st_mtime_ns
    assert saver.save(TEXT) is False
    assert saver.file.stat().st_mtime_ns == stamp
    assert saver.save(TEXT, {"lang": "fr"}) is True  # the review changed
    assert saver.save(TEXT + "more") is True


def test_discard_on_clean_save_or_close() -> None:
    saver = Autosaver.for_document(None)
    saver.save(TEXT)
    assert pending(include_running=True)
    saver.discard()
    assert not saver.file.exists()
    assert pending(include_running=True) == []
    saver.discard()  # twice is fine
    assert saver.save(TEXT) is True  # and a later save writes again


def test_files_of_running_processes_are_not_offered() -> None:
    saver = Autosaver.for_document("/tmp/docs/guide.md")
    saver.save(TEXT)
    assert pending() == []  # this process is alive: not a crash
    assert [r.key for r in pending(include_running=True)] == [saver.key]


def test_a_crashed_run_is_offered_back_with_its_edits(tmp_path: Path) -> None:
    """A real process autosaves a source and a target edit, then dies without cleaning up."""
    doc_path = tmp_path / "guide.md"
    child = textwrap.dedent(
        f"""
        import os
        from fastdesk.review.autosave import Autosaver
        from fastdesk.document.blocks import parse
        from fastdesk.translate.events import BlockDone
        from fastdesk.review.model import Review

        text = {TEXT!r}
        doc = parse(text)
        review = Review({str(doc_path)!r}, "fr", doc)
        for b in doc.blocks:
            review.apply_event(BlockDone(0, b.id, b.text.upper(), "model"))
        review.edit(doc.blocks[1].id, "Quelques mots non enregistrés.\\n")
        Autosaver.for_document({str(doc_path)!r}).save(text, review.to_dict())
        os._exit(3)  # a crash: no discard
        """
    )
    run = subprocess.run([sys.executable, "-c", child], env=os.environ.copy(), timeout=60)
    assert run.returncode == 3
    found = pending()
    assert len(found) == 1
    recovery = found[0]
    assert recovery.path == doc_path and recovery.preview == "# Title"
    assert recovery.chars == len(TEXT) and "guide.md" in recovery.label
    restored = restore(recovery)
    assert restored.source_text == TEXT and restored.path == doc_path
    assert restored.review is not None
    review = Review.from_dict(restored.review, restored.path)
    review.realign(parse(restored.source_text))
    assert review.state_of(parse(TEXT).blocks[1].id) == "edited"
    assert "Quelques mots non enregistrés." in review.target_text()
    discard(recovery)
    assert pending() == []


def _crashed_file(key: str, payload: dict[str, object]) -> Path:
    folder = autosave_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{key}.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    return path


def test_pending_lists_newest_first_and_sets_broken_files_aside() -> None:
    dead = {"version": 1, "pid": -1, "review": None}
    _crashed_file(
        "a", {**dead, "path": None, "saved": "2024-01-01T10:00:00+00:00", "source": "old"}
    )
    _crashed_file(
        "b",
        {
            **dead,
            "path": "/x/b.md",
            "saved": "2024-02-01T10:00:00+00:00",
            "source": "\n\nnew one\n",
        },
    )
    broken = _crashed_file("c", {})
    broken.write_text("{not json", encoding="utf-8")
    _crashed_file("d", {"version": 7, "source": "future"})
    found = pending()
    assert [r.key for r in found] == ["b", "a"]
    assert found[0].preview == "new one" and found[1].path is None
    assert "Untitled document" in found[1].label
    names = sorted(p.name for p in autosave_dir().iterdir())
    assert names[:2] == ["a.json", "b.json"]
    assert any(n.startswith("c.json.broken-") for n in names)
    assert any(n.startswith("d.json.broken-") for n in names)


def test_an_autosave_write_is_atomic(monkeypatch: pytest.MonkeyPatch) -> None:
    saver = Autosaver.for_document("/tmp/docs/guide.md")
    saver.save(TEXT)
    before = saver.file.read_bytes()

    def fail(*_args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        saver.save(TEXT + "more")
    assert saver.file.read_bytes() == before
    assert [p.name for p in autosave_dir().iterdir()] == [saver.file.name]
    monkeypatch.undo()
    assert saver.save(TEXT + "more") is True  # a failed write is retried, not skipped


def test_review_round_trip_through_to_dict() -> None:
    doc = parse(TEXT)
    review = Review(None, "fr", doc)
    for b in doc.blocks:
        review.apply_event(BlockDone(0, b.id, b.text.upper(), "model"))
    review.approve(doc.blocks[0].id)
    data = json.loads(json.dumps(review.to_dict()))
    again = Review.from_dict(data)
    assert again.to_dict() == review.to_dict()
    assert again.state_of(doc.blocks[0].id) == "approved"
