"""The project panel watches the targets on disk: a translator's editor writing guide.fr.md
while the window stays in front changes that cell, and only that pair is read again."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest

from tests.project_kit import write
from tests.ui.test_project_panel import PAGE, cell, opened, settle
from tests.ui.test_project_panel import site as site  # the same small MkDocs site


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[list[tuple[str, str]]]:
    """The pairs each background read of the panel reads."""
    from fastdesk.project.status import read_status as real
    from fastdesk.ui.workbench import project as panel

    seen: list[list[tuple[str, str]]] = []

    def read_status(project, sources=None, *, pairs=None):  # type: ignore[no-untyped-def]
        seen.append(sorted((s.as_posix(), lang) for s, lang in pairs or ()))
        return real(project, sources, pairs=pairs)

    monkeypatch.setattr(panel, "read_status", read_status)
    return seen


def test_a_target_written_by_another_editor_is_read_again_alone(
    make_window, qtbot, site: Path, reads: list[list[tuple[str, str]]]
) -> None:
    window = opened(make_window, qtbot, site)
    assert cell(window, "docs/index.md", "de") == "missing"
    reads.clear()
    # another editor saves the way most do: a new file renamed over the target's path
    tmp = write(site / "docs/.index.de.md.tmp", PAGE.replace("Hello", "Hallo"))
    tmp.replace(site / "docs/index.de.md")
    qtbot.waitUntil(lambda: cell(window, "docs/index.md", "de") != "missing", timeout=5_000)
    settle(qtbot, window)
    assert reads == [[("docs/index.md", "de")]]

    # then edits it in place: seen again, that pair only
    reads.clear()
    with (site / "docs/index.de.md").open("a", encoding="utf-8") as f:
        f.write("\nNoch ein Satz.\n")
    qtbot.waitUntil(lambda: reads == [[("docs/index.md", "de")]], timeout=5_000)
    settle(qtbot, window)
    entry = window.project.dock.entry("docs/index.md", "de")
    assert entry is not None and entry["state"] != "missing"


def test_files_beside_the_targets_that_are_not_targets_read_nothing(
    make_window, qtbot, site: Path, reads: list[list[tuple[str, str]]]
) -> None:
    window = opened(make_window, qtbot, site)
    reads.clear()
    watch = window.project.watch
    changes: list[object] = []
    watch.changed.connect(changes.append)
    # the folder's event, settled (150 ms without another) and checked: nothing to read
    with qtbot.waitSignal(watch._paths.settled, timeout=10_000):
        write(site / "docs/notes.txt", "not a target")  # the suffixed targets' folder
    assert changes == [] and reads == []
    watch.check()  # asked directly: still nothing changed
    assert reads == []


def test_a_target_folder_made_later_is_watched(
    make_window, qtbot, tmp_path: Path, reads: list[list[tuple[str, str]]]
) -> None:
    """A folder layout whose French folder does not exist yet: the translator makes it."""
    root = tmp_path / "mirror"
    write(root / "en/guide/start.md", PAGE)
    write(root / "fr/.keep", "")
    window = opened(make_window, qtbot, root)
    assert cell(window, "en/guide/start.md", "fr") == "missing"
    reads.clear()
    write(root / "fr/guide/start.md", PAGE.replace("Hello", "Bonjour"))
    qtbot.waitUntil(lambda: cell(window, "en/guide/start.md", "fr") != "missing", timeout=5_000)
    assert [("en/guide/start.md", "fr")] in reads
    assert PurePosixPath("en/guide/start.md") in window.project.dock.rows


def test_a_target_changed_after_the_panel_closed_asks_for_no_read(
    make_window, qtbot, site: Path, reads: list[list[tuple[str, str]]]
) -> None:
    """The watch's settle timer can fire after the window closed the panel: nothing is read
    (before, the closed runner raised inside Qt's event loop)."""
    window = opened(make_window, qtbot, site)
    panel = window.project
    reads.clear()
    panel.close()
    write(site / "docs/index.de.md", PAGE.replace("Hello", "Hallo"))
    panel.watch.check()  # what the settle timer does once the change settles
    assert reads == []
