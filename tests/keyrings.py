"""An in-memory keyring backend shared by the tests: the real keyring API, no daemon, no disk.

Most tests cannot reach a Secret Service (the default backend here is ``fail.Keyring``), and a
test must never store a key anywhere real, so they install this one with ``keyring.set_keyring``.
"""

from __future__ import annotations

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class MemoryKeyring(KeyringBackend):
    """A keyring that keeps passwords in a dict; deleting a missing one raises, as real ones do."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.items.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.items[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.items:
            raise PasswordDeleteError("no such password")
        del self.items[(service, username)]
