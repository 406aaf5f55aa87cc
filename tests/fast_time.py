"""A minute that lasts a few real seconds, for a server and the real processes it serves.

Why: a rate limit's minute is the point of some tests (two ``fastdesk translate`` processes on
one key meeting a server's requests-per-minute limit), and a test must not wait real minutes.
Shortening only the server's minute would not do: the processes' limiters count a 60-second
minute, and a limit learnt from a 429 would then pace them ten times too slow. So both run on
one faster clock: the loopback server reads it (``Emulator(clock=fast)``), and each child
process gets it at start-up from a ``sitecustomize.py`` on its PYTHONPATH (as
``tests/test_clock.py`` shifts a child's clocks): ``time.monotonic`` and ``time.time`` run
``scale`` times faster, ``time.sleep`` and the event loop's waits for the selector last
``1/scale`` as long, so ``asyncio.sleep(60)`` is six real seconds at ``scale=10``. Wall times
count from one ``origin`` every process shares, so the shared limits file's times agree.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

_SITECUSTOMIZE = """\
import selectors
import time

_SCALE, _ORIGIN = {scale!r}, {origin!r}
_monotonic, _monotonic_ns, _time, _sleep = time.monotonic, time.monotonic_ns, time.time, time.sleep
time.monotonic = lambda: _monotonic() * _SCALE
time.monotonic_ns = lambda: int(_monotonic_ns() * _SCALE)
time.time = lambda: _ORIGIN + (_time() - _ORIGIN) * _SCALE
time.sleep = lambda seconds: _sleep(seconds / _SCALE)


def _faster(select):
    def faster_select(self, timeout=None):
        return select(self, None if timeout is None else timeout / _SCALE)

    return faster_select


for _name in ("SelectSelector", "PollSelector", "EpollSelector", "KqueueSelector"):
    _cls = getattr(selectors, _name, None)
    if _cls is not None:
        _cls.select = _faster(_cls.select)
"""


@dataclass(frozen=True)
class FastTime:
    """A clock ``scale`` times faster than the real one (fastdesk.clock's two readings)."""

    scale: float
    origin: float = field(default_factory=time.time)  # the wall time both clocks agree on

    def monotonic(self) -> float:
        return time.monotonic() * self.scale

    def wall(self) -> float:
        return self.origin + (time.time() - self.origin) * self.scale

    def child_env(self, folder: Path, env: dict[str, str]) -> dict[str, str]:
        """``env`` for a child process on this clock: its ``sitecustomize.py`` in ``folder``,
        first on PYTHONPATH."""
        folder.mkdir(parents=True, exist_ok=True)
        source = _SITECUSTOMIZE.format(scale=float(self.scale), origin=self.origin)
        (folder / "sitecustomize.py").write_text(source, encoding="utf-8")
        paths = [str(folder), env.get("PYTHONPATH", "")]
        return {**env, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
