"""Logging for the app and the command line, with every record redacted before it is written.

The redaction is a filter on each *handler* (a filter on a logger would miss records logged on its
children, such as ``fastdesk.config.keys``), and it rewrites the message, its arguments, the
exception
text and the stack text, so that no handler can format the raw key later.
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import sys
import traceback
from pathlib import Path

from fastdesk.config import paths
from fastdesk.config.fileio import os_reason
from fastdesk.config.redact import redact

__all__ = ["LOG_FILE_NAME", "RedactingFilter", "log_file", "reset_logging", "setup_logging"]

LOGGER_NAME = "fastdesk"
LOG_FILE_NAME = "fastdesk.log"
MAX_LOG_BYTES = 1_000_000
LOG_BACKUPS = 3
# SDK loggers worth seeing when debugging a provider (-vvv); their records are redacted too.
THIRD_PARTY_LOGGERS = ("httpx", "aiohttp", "groq", "cerebras")

_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_STDERR_FORMAT = "fastdesk: %(levelname)s %(name)s: %(message)s"
_MARK = "_fastdesk_handler"  # set on the handlers we install, so set-up can be repeated
_saved_levels: dict[str, int] = {}  # SDK loggers' levels before -vvv changed them


class RedactingFilter(logging.Filter):
    """Rewrites a record so that nothing a handler prints can hold a secret."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string must not hide the record (nor leak its args)
            message = f"{record.msg!s} (unformattable arguments)"
        record.msg = redact(message)
        record.args = None
        if record.exc_info and record.exc_info[0] is not None:
            text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
            record.exc_text = redact(text)
        elif record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


class _LogFile(logging.handlers.RotatingFileHandler):
    """The rotating log file; when it cannot be written (a folder in its place, a full disk, a
    read-only folder) it says so once on standard error and is quiet from then on, where
    logging's default would print a traceback for every record."""

    failed = False

    def emit(self, record: logging.LogRecord) -> None:
        if not self.failed:
            super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:
        exc = sys.exc_info()[1]
        if self.failed:
            return
        self.failed = True
        reason = os_reason(exc) if isinstance(exc, OSError) else type(exc).__name__
        with contextlib.suppress(Exception):  # flushing what is buffered fails the same way
            self.close()
        with contextlib.suppress(Exception):
            sys.stderr.write(
                f"fastdesk: WARNING {LOGGER_NAME}: the log file {self.baseFilename} cannot be "
                f"written ({reason}); logging to standard error only\n"
            )


def log_file() -> Path:
    """Where the rotating log lives (under FASTDESK_HOME when set)."""
    return paths.log_dir() / LOG_FILE_NAME


def _stderr_level(verbose: int) -> int:
    if verbose <= 0:
        return logging.WARNING
    return logging.INFO if verbose == 1 else logging.DEBUG


def _mark(handler: logging.Handler) -> logging.Handler:
    setattr(handler, _MARK, True)
    handler.addFilter(RedactingFilter())
    return handler


def reset_logging() -> None:
    """Remove the handlers :func:`setup_logging` installed and restore propagation (tests)."""
    for name in (LOGGER_NAME, *THIRD_PARTY_LOGGERS):
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            if getattr(handler, _MARK, False):
                logger.removeHandler(handler)
                handler.close()
        logger.propagate = True
    logging.getLogger(LOGGER_NAME).setLevel(logging.NOTSET)
    for name, level in _saved_levels.items():
        logging.getLogger(name).setLevel(level)
    _saved_levels.clear()


def setup_logging(verbose: int = 0, to_file: bool = True) -> None:
    """Configure the ``fastdesk`` logger: warnings (or more with ``-v``/``-vv``) to standard error,
    and, when ``to_file``, INFO (DEBUG with ``-vv``) to a rotating file in ``paths.log_dir()``.

    ``-vvv`` also routes the SDK loggers (httpx, groq, cerebras) to the same handlers. Calling it
    again replaces the previous set-up. The ``fastdesk`` logger stops propagating to the root
    logger, whose handlers would not redact.
    """
    reset_logging()
    handlers: list[logging.Handler] = []

    stderr = logging.StreamHandler(sys.stderr)
    stderr.setLevel(_stderr_level(verbose))
    stderr.setFormatter(logging.Formatter(_STDERR_FORMAT))
    handlers.append(_mark(stderr))

    if to_file:
        path = log_file()
        rotating = _LogFile(
            path, maxBytes=MAX_LOG_BYTES, backupCount=LOG_BACKUPS, encoding="utf-8", delay=True
        )
        rotating.setLevel(logging.DEBUG if verbose >= 2 else logging.INFO)
        rotating.setFormatter(logging.Formatter(_FORMAT))
        handlers.append(_mark(rotating))

    logger = logging.getLogger(LOGGER_NAME)
    logger.setLevel(min(h.level for h in handlers))
    logger.propagate = False
    for handler in handlers:
        logger.addHandler(handler)

    if verbose >= 3:
        for name in THIRD_PARTY_LOGGERS:
            sdk = logging.getLogger(name)
            _saved_levels[name] = sdk.level
            sdk.setLevel(logging.DEBUG)
            sdk.propagate = False
            for handler in handlers:
                sdk.addHandler(handler)
