"""Helpers for the fault tests: conditions a hostile user (or a bad day) makes, made on the fly.

The suite runs as root, for whom the kernel waives file permissions; :func:`powerless` gives the
command prefix that runs a child without that waiver (``setpriv`` drops the capabilities that
bypass permission checks, so even root obeys a read-only folder), or skips the test with the
reason when the machine cannot. A full disk is simulated without a filesystem of its own.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# Without these a root process still cannot be refused by file modes.
_POWERS = "-dac_override,-dac_read_search,-fowner,-linux_immutable"


def powerless() -> list[str]:
    """``setpriv …`` that runs a command bound by file permissions (skips when impossible)."""
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("setpriv (util-linux) is not installed: cannot drop root's file powers")
    prefix = [setpriv, "--inh-caps=-all", f"--bounding-set={_POWERS}", "--"]
    probe = subprocess.run([*prefix, "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip(f"setpriv cannot drop capabilities here: {probe.stderr.decode().strip()}")
    return prefix


def run_fastdesk(
    args: Sequence[str],
    env: Mapping[str, str],
    *,
    prefix: Sequence[str] = (),
    file_size_limit: int | None = None,
    cwd: Path | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """``python -m fastdesk ARGS`` in a child (with ``prefix``, under an RLIMIT_FSIZE)."""
    full_env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(REPO),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "LANG": "C.UTF-8",
        **env,
    }

    def limit() -> None:  # in the child, before exec: writes past the size fail with EFBIG
        import resource

        if file_size_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))

    return subprocess.run(
        [*prefix, sys.executable, "-m", "fastdesk", *args],
        env=full_env,
        cwd=cwd or REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=limit if file_size_limit is not None else None,
        check=False,
    )


@contextlib.contextmanager
def read_only(*paths: Path) -> Iterator[None]:
    """Take the write bits away (files and folders) and give them back afterwards."""
    modes = {p: p.stat().st_mode for p in paths}
    try:
        for p in paths:
            p.chmod(modes[p] & ~0o222)
        yield
    finally:
        for p, mode in modes.items():
            p.chmod(mode)


def full_disk(monkeypatch: pytest.MonkeyPatch, under: Path, name: str | None = None) -> None:
    """Every atomic write under ``under`` (of a file called ``name``, if given) fails as on a
    full disk: ENOSPC when its data is flushed, the old file left as it was."""
    real_fsync = os.fsync
    folder = str(under.resolve())

    def fsync(fd: int) -> None:
        where = os.readlink(f"/proc/self/fd/{fd}")
        inside = where.startswith(folder + os.sep)
        # atomic writes go through ".<name>.<random>.tmp" next to the file
        if inside and (name is None or os.path.basename(where).startswith(f".{name}.")):
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    if not Path("/proc/self/fd").is_dir():
        pytest.skip("needs /proc to tell which file a descriptor is")
    monkeypatch.setattr(os, "fsync", fsync)


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes (what must stay as it was)."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }
