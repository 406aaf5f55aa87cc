"""A link clicked in the rendered target: only http(s) and mailto reach the operating system;
any other scheme a stranger's document may hold is shown, not followed."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QUrl

from fastdesk.document.html import opens_on_click
from fastdesk.ui.panes.preview import TargetPreview


@pytest.mark.parametrize(
    ("url", "opens"),
    [
        ("https://example.com/a?b#c", True),
        ("HTTP://example.com", True),
        ("mailto:docs@example.com", True),
        ("javascript:alert(1)", False),
        ("smb://attacker.example/share", False),
        ("file:///etc/passwd", False),
        ("vscode://file/etc/passwd", False),
        ("java\tscript:alert(1)", False),
        ("https:evil", False),
        ("guide.md", False),
    ],
)
def test_only_web_and_mail_links_open(url: str, opens: bool) -> None:
    assert opens_on_click(url) is opens


def test_the_preview_hands_only_safe_links_to_the_os(
    qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    shown: list[str] = []
    monkeypatch.setattr(
        "fastdesk.ui.panes.links.QDesktopServices.openUrl",
        lambda url: opened.append(url.toString()),
    )
    monkeypatch.setattr(
        "fastdesk.ui.panes.links.QToolTip.showText", lambda _pos, text, *_a: shown.append(text)
    )
    preview = TargetPreview()
    qtbot.addWidget(preview)
    assert not preview.openExternalLinks() and not preview.openLinks()
    for url in ("javascript:alert(1)", "smb://attacker.example/share", "https://example.com/"):
        preview.anchorClicked.emit(QUrl(url))
    assert opened == ["https://example.com/"]
    assert [s.split(": ", 1)[1] for s in shown] == [
        "javascript:alert(1)",
        "smb://attacker.example/share",
    ]
