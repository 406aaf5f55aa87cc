"""`fastdesk memory`: see or clear the translation memory (the window has the same actions)."""

from __future__ import annotations

import argparse

from fastdesk.translate.memory import Memory


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("memory", help="show or clear the translation memory")
    p.add_argument("action", choices=("stats", "clear"))
    p.set_defaults(func=run_memory)


def run_memory(args: argparse.Namespace) -> int:
    """0 when done; 1 when the memory cannot be used (its one-line warning says why)."""
    from fastdesk.config.logs import setup_logging

    setup_logging(0, to_file=False)
    memory = Memory()
    try:
        if not memory.available:
            return 1
        if args.action == "clear":
            n = memory.count()
            if not memory.clear():
                return 1
            print(f"cleared {n} translations from {memory.path}")
        else:
            print(f"{memory.count()} translations in {memory.path}")
    finally:
        memory.close()
    return 0
