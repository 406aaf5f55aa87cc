"""Walk an application's accessible tree through AT-SPI, as a screen reader (Orca) gets it.

Run with the system Python that has pyatspi (Debian: python3-pyatspi), on the session bus of
the application (scripts/atspi-check does both):

    /usr/bin/python3 scripts/atspi_walk.py fastdesk [-v]

Prints the elements, the controls, the focusable ones and those of them without a name (role,
description, where), and whether any text carries U+FDD0…U+FDEF or U+2028/U+2029; exits 1 when
a focusable control has no name or a text carries such characters, 2 when the application is not
on the bus.
"""

from __future__ import annotations

import sys

import pyatspi  # type: ignore[import-not-found]

CONTROLS = {
    pyatspi.ROLE_PUSH_BUTTON, pyatspi.ROLE_TOGGLE_BUTTON, pyatspi.ROLE_CHECK_BOX,
    pyatspi.ROLE_RADIO_BUTTON, pyatspi.ROLE_COMBO_BOX, pyatspi.ROLE_SPIN_BUTTON,
    pyatspi.ROLE_SLIDER, pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY, pyatspi.ROLE_PASSWORD_TEXT,
    pyatspi.ROLE_TREE, pyatspi.ROLE_TREE_TABLE, pyatspi.ROLE_TABLE, pyatspi.ROLE_LIST,
    pyatspi.ROLE_PAGE_TAB, pyatspi.ROLE_PAGE_TAB_LIST, pyatspi.ROLE_DOCUMENT_TEXT,
    pyatspi.ROLE_DOCUMENT_FRAME, pyatspi.ROLE_LABEL, pyatspi.ROLE_LINK,
}  # fmt: skip
ODD = {chr(c) for c in range(0xFDD0, 0xFDF0)} | {"\u2028", "\u2029"}


def main(argv: list[str]) -> int:
    wanted = argv[1] if len(argv) > 1 and not argv[1].startswith("-") else "fastdesk"
    verbose = "-v" in argv
    desktop = pyatspi.Registry.getDesktop(0)
    apps = [desktop.getChildAtIndex(i) for i in range(desktop.childCount)]
    app = next((a for a in apps if a is not None and a.name == wanted), None)
    if app is None:
        print(f"{wanted} is not on the accessibility bus", file=sys.stderr)
        return 2
    counts = {"elements": 0, "controls": 0, "focusable": 0}
    unnamed: list[str] = []
    odd: list[str] = []

    def walk(node: object, depth: int, where: str) -> None:
        counts["elements"] += 1
        try:
            role, states, name = node.getRole(), node.getState(), node.name or ""
        except Exception:  # an element gone while walked: not ours to judge
            return
        if verbose:
            print("  " * depth + f"{node.getRoleName()} {name!r}")
        if role in CONTROLS:
            counts["controls"] += 1
            if states.contains(pyatspi.STATE_FOCUSABLE):
                counts["focusable"] += 1
                if not name.strip():
                    showing = "showing" if states.contains(pyatspi.STATE_SHOWING) else "hidden"
                    said = node.description
                    unnamed.append(f"{node.getRoleName()} ({showing}) {said=} in {where}")
        try:
            text = node.queryText()
            if ODD & set(text.getText(0, min(text.characterCount, 20000))):
                odd.append(f"{node.getRoleName()} {name!r}")
        except NotImplementedError:
            pass
        for i in range(node.childCount):
            walk(node.getChildAtIndex(i), depth + 1, f"{where}/{name or node.getRoleName()}")

    walk(app, 0, "")
    print(
        f"{counts['elements']} elements, {counts['controls']} controls, {counts['focusable']} "
        f"focusable, {len(unnamed)} focusable without a name, {len(odd)} texts with "
        "noncharacters or separators"
    )
    for line in unnamed:
        print("  no name:", line)
    for line in odd:
        print("  odd characters in:", line)
    return 1 if unnamed or odd else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
