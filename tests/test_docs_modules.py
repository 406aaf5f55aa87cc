"""docs/architecture.md names every module of fastdesk, and no module that is gone: its
"Every module" section is checked against the packages on disk, so the map cannot drift."""

from __future__ import annotations

import re
from pathlib import Path

import fastdesk

DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
PACKAGE_ROOT = Path(fastdesk.__file__).resolve().parent


def modules_on_disk() -> dict[str, set[str]]:
    """Package folder (relative, "" for fastdesk itself) → its modules' names (no `__init__`)."""
    found: dict[str, set[str]] = {}
    for path in PACKAGE_ROOT.rglob("*.py"):
        if path.name == "__init__.py" or "__pycache__" in path.parts:
            continue
        folder = path.parent.relative_to(PACKAGE_ROOT).as_posix()
        found.setdefault("" if folder == "." else folder, set()).add(path.stem)
    return found


def modules_in_doc(text: str) -> dict[str, set[str]]:
    """The section's `### `fastdesk/X/`` headings, each with its `- `module`: …` lines."""
    section = text.split("\n## Every module\n", 1)
    assert len(section) == 2, "docs/architecture.md has no '## Every module' section"
    body = section[1].split("\n## ", 1)[0]
    listed: dict[str, set[str]] = {}
    current: set[str] | None = None
    for line in body.splitlines():
        heading = re.fullmatch(r"### `fastdesk/((?:[\w]+/)*)`", line.strip())
        if heading:
            current = listed.setdefault(heading.group(1).rstrip("/"), set())
            continue
        item = re.match(r"- `(\w+)`", line)
        if item:
            assert current is not None, f"a module listed before any package heading: {line}"
            current.add(item.group(1))
    return listed


def test_every_module_is_in_the_architecture_doc() -> None:
    on_disk = modules_on_disk()
    listed = modules_in_doc(DOC.read_text(encoding="utf-8"))
    missing = sorted(
        f"fastdesk/{folder + '/' if folder else ''}{name}.py"
        for folder, names in on_disk.items()
        for name in names - listed.get(folder, set())
    )
    assert not missing, "docs/architecture.md's 'Every module' does not list: " + ", ".join(missing)


def test_the_architecture_doc_names_no_module_that_is_gone() -> None:
    on_disk = modules_on_disk()
    listed = modules_in_doc(DOC.read_text(encoding="utf-8"))
    gone = sorted(
        f"fastdesk/{folder + '/' if folder else ''}{name}.py"
        for folder, names in listed.items()
        for name in names - on_disk.get(folder, set())
    )
    assert not gone, (
        "docs/architecture.md's 'Every module' lists modules that do not exist: " + ", ".join(gone)
    )


def test_the_section_parser_reads_headings_and_items() -> None:
    text = (
        "# A\n\n## Every module\n\n### `fastdesk/`\n- `clock`: one clock\n\n"
        "### `fastdesk/ui/bridge/`\n- `worker`: w\n\n## Next\n- `nope`\n"
    )
    assert modules_in_doc(text) == {"": {"clock"}, "ui/bridge": {"worker"}}
