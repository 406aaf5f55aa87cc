"""fastdesk beside the tools a docs team would pick instead, on one docs site, one server.

    .venv/bin/python benchmarks/bench_peers.py DOCS_DIR [--mdpo VENV] [--coop VENV] [--mta VENV]
        [--tools fastdesk,mdpo-llm,co-op-translator,markdown-translate-ai] [--to fr] [--runs 1]
        [--coop-concurrency N] [--pages N] [--tiktoken-cache DIR] [--json FILE] [--keep]
    .venv/bin/python benchmarks/bench_peers.py --tables RUN.json [RUN.json ...]

DOCS_DIR: a MkDocs site's folder, e.g. Python-Markdown's ``docs/``
(github.com/Python-Markdown/markdown). Every tool gets its own copy of the site and a fresh
instance of the loopback OpenAI-compatible server benchmarks/bench_site.py measures fastdesk
against (``site_server``: 150 ms to first token, 800 tokens/s streamed or whole, a paid tier in
its headers, prompts cached by exact prefix, a model that translates every word it is given
and keeps each tool's placeholders), so no tool finds another's prompts cached. Three runs a
tool, each timed as a fresh process (or, for markdown-translate-ai, which takes one file a
process, a loop over the pages, one after another, as a shell ``for`` loop runs it):

- cold: nothing translated yet;
- rerun: the same command again, nothing changed;
- one sentence changed: one sentence of the first page edited, the command again.

Printed per run: wall time, the 1-minute load average at its end, the tool's CPU time (and
the server's, in this process), requests (every chat request the server saw, a health check
included), prompt characters (of which in system messages), cached prompt tokens as the
server counted them, target pages written; then the issue 42 table and fastdesk's cold time ÷
mdpo-llm's.

The peers are not fastdesk's dependencies: nothing of fastdesk imports them, and each is run
from its own virtual environment as a command. Install them (PyPI; markdown-translate-ai
needs Python ≥ 3.12):

    python3 -m venv PEERS/mdpo && PEERS/mdpo/bin/pip install mdpo-llm          # 0.5.0
    python3 -m venv PEERS/coop && PEERS/coop/bin/pip install co-op-translator  # 0.23.2
    python3.12 -m venv PEERS/mta && PEERS/mta/bin/pip install markdown-translate-ai  # 0.1.3

How each is pointed at the server, offline:
- mdpo-llm (LiteLLM): ``OPENAI_API_BASE``, model ``openai/bench-model``;
  ``LITELLM_LOCAL_MODEL_COST_MAP=True`` (else LiteLLM tries to download its price list and
  each start waits ~9 s). ``mdpo-llm translate-dir --model M --target fr docs fr``.
- co-op-translator: ``OPENAI_BASE_URL``, ``OPENAI_CHAT_MODEL_ID``; it counts tokens with
  tiktoken's ``o200k_base``, which tiktoken downloads unless ``TIKTOKEN_CACHE_DIR`` holds it
  (under the SHA-1 of its URL, ``fb374d419588a4632f3f557e76b4b70aebbca790``). LiteLLM ships
  that very file (same SHA-256) in ``litellm/litellm_core_utils/tokenizers/``: by default it
  is taken from the mdpo-llm environment (``--tiktoken-cache DIR`` names another folder).
  ``translate -l fr -r SITE -md -y``.
- markdown-translate-ai: ``OPENAI_BASE_URL`` (the OpenAI SDK's own); one page a process,
  ``markdown-translate-ai PAGE OUT French --model gpt-4o-mini``, and on later runs
  ``--update-mode --previous-source`` the page as it was at the last run (kept by the loop).
- fastdesk: ``fastdesk translate SITE --to fr --provider openai`` with a fresh home (memory
  on, as a user runs it).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_site import site_copy, site_server
from tests.emulator import Emulator, PromptCache

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ("fastdesk", "mdpo-llm", "co-op-translator", "markdown-translate-ai")
PHASES = ("cold", "rerun", "one sentence changed")
O200K = "fb374d419588a4632f3f557e76b4b70aebbca790"  # sha1 of tiktoken's o200k_base URL
LANGUAGE_NAMES = {"fr": "French", "de": "German", "es": "Spanish", "it": "Italian"}
print = functools.partial(print, flush=True)  # figures as they come


@dataclass
class Phase:
    """One timed run of one tool."""

    tool: str
    phase: str
    wall_s: float
    load: float  # 1-minute load average at the run's end
    exit: int
    requests: int
    prompt_chars: int
    system_chars: int
    cached_tokens: int
    pages_written: int
    pages: int  # the site's source pages
    source_chars: int  # their characters
    version: str = ""  # the tool's
    cpu_s: float = 0.0  # the tool's processes' CPU time (user + system)
    server_cpu_s: float = 0.0  # this process's (the server's threads) meanwhile

    @property
    def uncached_share(self) -> float:
        """Uncached prompt tokens ÷ the source's tokens (≈ 4 characters a token, as the server
        counts them)."""
        return max(0.0, self.prompt_chars / 4 - self.cached_tokens) / (self.source_chars / 4)


class Peer:
    """A tool run as a user runs it: a command in its own environment, in the site's copy."""

    name = ""
    binary = ""  # the command in the environment's bin/

    def __init__(self, venv: Path | None, to: str) -> None:
        self.venv = venv
        self.to = to

    def env(self, base_url: str, home: Path) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        for name in ("OPENAI_BASE_URL", "OPENAI_API_BASE", "PYTHONPATH", "VIRTUAL_ENV"):
            env.pop(name, None)
        env["HOME"] = str(home)
        return env

    def commands(self, site: Path, first: bool) -> list[list[str]]:
        raise NotImplementedError

    def after(self, site: Path) -> None:
        """Called after each run."""

    def version(self) -> str:
        if self.venv is None:
            return ""
        found = subprocess.run(
            [str(self.venv / "bin" / "python"), "-c", _VERSION, self.name],
            capture_output=True,
            text=True,
        )
        return found.stdout.strip()


_VERSION = "import sys, importlib.metadata as m; print(m.version(sys.argv[1]))"


class Fastdesk(Peer):
    name = "fastdesk"

    def env(self, base_url: str, home: Path) -> dict[str, str]:
        env = super().env(base_url, home)
        env.update(
            FASTDESK_HOME=str(home / "fastdesk"),
            FASTDESK_OPENAI_BASE_URL=base_url,
            FASTDESK_OPENAI_API_KEY="sk-bench-peers",
            FASTDESK_OPENAI_MODEL="bench-model",
            PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
            PYTHONPATH=str(ROOT),
        )
        return env

    def commands(self, site: Path, first: bool) -> list[list[str]]:
        args = ["translate", str(site), "--to", self.to, "--provider", "openai"]
        return [[sys.executable, "-m", "fastdesk", *args]]

    def version(self) -> str:
        """The last commit that changed fastdesk/ (benchmarks/ may be ahead of it)."""
        last = ["git", "-C", str(ROOT), "log", "-1", "--format=%h", "--", "fastdesk"]
        return subprocess.run(last, capture_output=True, text=True).stdout.strip()


class Mdpo(Peer):
    name = "mdpo-llm"
    binary = "mdpo-llm"

    def env(self, base_url: str, home: Path) -> dict[str, str]:
        env = super().env(base_url, home)
        env.update(
            OPENAI_API_BASE=base_url,
            OPENAI_API_KEY="sk-bench-peers",
            LITELLM_LOCAL_MODEL_COST_MAP="True",
        )
        return env

    def commands(self, site: Path, first: bool) -> list[list[str]]:
        assert self.venv is not None
        tool = str(self.venv / "bin" / "mdpo-llm")
        args = ["translate-dir", "--model", "openai/bench-model", "--target", self.to]
        return [[tool, *args, "--no-progress", str(site / "docs"), str(site / self.to)]]


class CoOp(Peer):
    name = "co-op-translator"
    binary = "translate"

    def __init__(
        self, venv: Path | None, to: str, tiktoken_cache: Path, concurrency: int | None
    ) -> None:
        super().__init__(venv, to)
        self.tiktoken_cache = tiktoken_cache
        self.concurrency = concurrency

    def env(self, base_url: str, home: Path) -> dict[str, str]:
        env = super().env(base_url, home)
        env.update(
            OPENAI_BASE_URL=base_url,
            OPENAI_API_KEY="sk-bench-peers",
            OPENAI_CHAT_MODEL_ID="bench-model",
            TIKTOKEN_CACHE_DIR=str(self.tiktoken_cache),
        )
        return env

    def commands(self, site: Path, first: bool) -> list[list[str]]:
        assert self.venv is not None
        tool = str(self.venv / "bin" / "translate")
        more = ["--concurrency", str(self.concurrency)] if self.concurrency else []
        return [[tool, "-l", self.to, "-r", str(site), "-md", "-y", *more]]

    def version(self) -> str:
        more = f" (--concurrency {self.concurrency})" if self.concurrency else ""
        return super().version() + more


class MarkdownTranslateAi(Peer):
    name = "markdown-translate-ai"
    binary = "markdown-translate-ai"

    def env(self, base_url: str, home: Path) -> dict[str, str]:
        env = super().env(base_url, home)
        env.update(OPENAI_BASE_URL=base_url, OPENAI_API_KEY="sk-bench-peers")
        return env

    def commands(self, site: Path, first: bool) -> list[list[str]]:
        assert self.venv is not None
        tool = str(self.venv / "bin" / "markdown-translate-ai")
        language = LANGUAGE_NAMES.get(self.to, self.to)
        docs, out, previous = site / "docs", site / f"mta-{self.to}", site / ".mta-previous"
        runs = []
        for page in _pages(docs):
            rel = page.relative_to(docs)
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            command = [tool, str(page), str(out / rel), language, "--model", "gpt-4o-mini"]
            if not first:
                command += ["--update-mode", "--previous-source", str(previous / rel)]
            runs.append(command)
        return runs

    def after(self, site: Path) -> None:
        """The sources as translated, for the next run's ``--previous-source``."""
        previous = site / ".mta-previous"
        shutil.rmtree(previous, ignore_errors=True)
        shutil.copytree(site / "docs", previous)


def _pages(docs: Path) -> list[Path]:
    return sorted(p for p in docs.rglob("*.md") if p.is_file())


def _written(site: Path) -> set[Path]:
    """The Markdown files of the site's copy, outside hidden folders (a tool's state)."""
    found = site.rglob("*.md")
    return {p for p in found if not any(s.startswith(".") for s in p.relative_to(site).parts)}


def _content(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def edit_one_sentence(docs: Path, sources: Sequence[Path]) -> str:
    """One sentence of the first source page with prose changed (a word added); where."""
    for page in sources:
        lines = page.read_text(encoding="utf-8").split("\n")
        fenced = False
        for i, line in enumerate(lines):
            if line.lstrip().startswith(("```", "~~~")):
                fenced = not fenced
            words = line.split()
            if not fenced and len(words) >= 8 and line[:1].isupper() and "|" not in line:
                lines[i] = f"{words[0]} really {' '.join(words[1:])}"
                page.write_text("\n".join(lines), encoding="utf-8")
                return f"{page.relative_to(docs)}:{i + 1}"
    raise SystemExit("no sentence of prose found to change")


def run_phase(
    peer: Peer,
    site: Path,
    emu: Emulator,
    cache: PromptCache,
    phase: str,
    home: Path,
    sources: Sequence[Path],
) -> Phase:
    before_md = _written(site)
    emu.reset_records()
    cached_before = cache.total
    env = peer.env(emu.openai_base_url, home)
    exit_code = 0
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    served = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    for command in peer.commands(site, first=phase == "cold"):
        done = subprocess.run(command, env=env, cwd=site, capture_output=True, text=True)
        if done.returncode != 0:
            exit_code = exit_code or done.returncode
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            print(f"    {peer.name} exited {done.returncode}: {' | '.join(tail)[:400]}")
    wall = time.perf_counter() - start
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = now.ru_utime - used.ru_utime + now.ru_stime - used.ru_stime
    mine = resource.getrusage(resource.RUSAGE_SELF)
    server_cpu = mine.ru_utime - served.ru_utime + mine.ru_stime - served.ru_stime
    peer.after(site)
    bodies = [r.body for r in emu.chat_requests if isinstance(r.body, dict)]
    messages = [m for b in bodies for m in b.get("messages") or []]
    written = len(_written(site) - before_md) if phase == "cold" else 0
    return Phase(
        tool=peer.name,
        phase=phase,
        wall_s=wall,
        load=os.getloadavg()[0],
        exit=exit_code,
        requests=len(bodies),
        prompt_chars=sum(len(_content(m)) for m in messages),
        system_chars=sum(len(_content(m)) for m in messages if m.get("role") == "system"),
        cached_tokens=cache.total - cached_before,
        pages_written=written,
        pages=len(sources),
        cpu_s=cpu,
        server_cpu_s=server_cpu,
        source_chars=sum(len(page.read_text(encoding="utf-8")) for page in sources),
    )


def run_tool(peer: Peer, docs: Path, pages: int | None, keep: bool) -> list[Phase]:
    tmp = Path(tempfile.mkdtemp(prefix=f"bench-peers-{peer.name}-"))
    try:
        site = site_copy(docs, tmp)[0]
        if pages is not None:
            for extra in _pages(site / "docs")[pages:]:
                extra.unlink()
        (tmp / "home").mkdir()
        sources = _pages(site / "docs")
        cache = PromptCache()
        phases = []
        with site_server(cache) as emu:
            for phase in PHASES:
                if phase == "one sentence changed":
                    where = edit_one_sentence(site / "docs", sources)
                    print(f"    changed {where}")
                result = run_phase(peer, site, emu, cache, phase, tmp / "home", sources)
                print(f"  {_line(result)}")
                phases.append(result)
        return phases
    finally:
        if keep:
            print(f"    kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def _line(p: Phase) -> str:
    written = f", {p.pages_written} target pages written" if p.phase == "cold" else ""
    return (
        f"{p.tool}, {p.phase}: {p.wall_s:.1f} s (load {p.load:.1f}, exit {p.exit}, "
        f"{p.cpu_s:.1f} s of CPU, the server's {p.server_cpu_s:.1f} s), "
        f"{p.requests} requests, prompt {p.prompt_chars / 1000:.0f} k chars "
        f"(system {p.system_chars / 1000:.0f} k), {p.cached_tokens} cached tokens (uncached "
        f"÷ source tokens {p.uncached_share:.2f}){written}"
    )


def table(results: Sequence[Phase]) -> str:
    """The issue's table: each figure's range over the runs, per tool and phase."""
    rows = [
        "| tool | cold run | requests (a page) | prompt chars (of which system) "
        "| uncached prompt tokens ÷ source tokens | rerun, nothing changed "
        "| one sentence changed |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in dict.fromkeys(_name(p) for p in results):
        by = {ph: [p for p in results if _name(p) == name and p.phase == ph] for ph in PHASES}
        cold, rerun, edit = by["cold"], by["rerun"], by["one sentence changed"]
        load = _span([p.load for p in cold], 1)
        rows.append(
            f"| {name} | {_span([p.wall_s for p in cold])} s (load {load}) "
            f"| {_span([p.requests for p in cold], 0)} "
            f"({_span([p.requests / p.pages for p in cold])}) "
            f"| {_span([p.prompt_chars / 1000 for p in cold], 0)} k "
            f"({_span([p.system_chars / 1000 for p in cold], 0)} k) "
            f"| {_span([p.uncached_share for p in cold], 2)} "
            f"| {_span([p.wall_s for p in rerun])} s, {_span([p.requests for p in rerun], 0)} req "
            f"| {_span([p.wall_s for p in edit])} s, {_span([p.requests for p in edit], 0)} req |"
        )
    return "\n".join(rows)


def _name(p: Phase) -> str:
    return f"{p.tool} {p.version}".strip()


def _span(values: Sequence[float], digits: int = 1) -> str:
    low, high = min(values), max(values)
    if f"{low:.{digits}f}" == f"{high:.{digits}f}":
        return f"{low:,.{digits}f}"
    return f"{low:,.{digits}f}–{high:,.{digits}f}"


def tiktoken_cache(given: Path | None, mdpo: Path | None) -> Path | None:
    """A folder holding tiktoken's o200k_base under its cache name, or None."""
    if given is not None:
        return given if (given / O200K).is_file() else None
    if mdpo is not None:
        for found in mdpo.glob(f"lib/python*/site-packages/litellm/*/tokenizers/{O200K}"):
            return found.parent
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("docs", type=Path, nargs="?")
    ap.add_argument("--mdpo", type=Path, help="mdpo-llm's virtual environment")
    ap.add_argument("--coop", type=Path, help="co-op-translator's virtual environment")
    ap.add_argument("--mta", type=Path, help="markdown-translate-ai's virtual environment")
    ap.add_argument(
        "--coop-concurrency", type=int, help="co-op-translator's --concurrency (its default: 1)"
    )
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--to", default="fr")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--pages", type=int, help="only the first N pages (a quick check)")
    ap.add_argument("--tiktoken-cache", type=Path, help="a folder with tiktoken's o200k_base")
    ap.add_argument("--json", type=Path, help="write every run's figures here")
    ap.add_argument("--keep", action="store_true", help="keep each tool's copy of the site")
    ap.add_argument(
        "--tables", type=Path, nargs="+", help="run nothing: the table of these --json files"
    )
    args = ap.parse_args()
    if args.tables:
        saved = [Phase(**row) for f in args.tables for row in json.loads(f.read_text("utf-8"))]
        print(table(saved))
        return
    if args.docs is None or not args.docs.is_dir():
        ap.error("DOCS_DIR: a folder of Markdown pages is needed (or --tables)")
    peers: list[Peer] = []
    for name in args.tools.split(","):
        if name == "fastdesk":
            peers.append(Fastdesk(None, args.to))
        elif name == "mdpo-llm" and args.mdpo:
            peers.append(Mdpo(args.mdpo, args.to))
        elif name == "co-op-translator" and args.coop:
            cache = tiktoken_cache(args.tiktoken_cache, args.mdpo)
            if cache is None:
                print("co-op-translator skipped: no tiktoken o200k_base (--tiktoken-cache DIR)")
                continue
            peers.append(CoOp(args.coop, args.to, cache, args.coop_concurrency))
        elif name == "markdown-translate-ai" and args.mta:
            peers.append(MarkdownTranslateAi(args.mta, args.to))
        elif name not in TOOLS:
            sys.exit(f"unknown tool {name!r}: one of {', '.join(TOOLS)}")
        else:
            print(f"{name} skipped: its environment was not given")
    missing = [p for p in peers if p.venv and not (p.venv / "bin" / p.binary).is_file()]
    for peer in missing:
        print(f"{peer.name} skipped: {peer.venv}/bin/{peer.binary} not found (see --help)")
    peers = [p for p in peers if p not in missing]
    if not peers:
        sys.exit("nothing to run")
    versions = {p.name: p.version() for p in peers}
    pages = len(_pages(args.docs))
    if args.pages is not None:
        pages = min(pages, args.pages)
    print(f"{pages} pages of {args.docs}, into {args.to}; {time.strftime('%Y-%m-%d %H:%M %Z')}")
    results: list[Phase] = []
    for run in range(args.runs):
        for peer in peers:
            print(f"run {run + 1}, {peer.name} {versions[peer.name]}")
            for phase in run_tool(peer, args.docs, args.pages, args.keep):
                results.append(replace(phase, version=versions[peer.name]))
    print()
    print(table(results))
    cold = {t: [p.wall_s for p in results if p.tool == t and p.phase == "cold"] for t in TOOLS}
    if cold["fastdesk"] and cold["mdpo-llm"]:
        ratio = [f / m for f, m in zip(cold["fastdesk"], cold["mdpo-llm"], strict=False)]
        each = ", ".join(f"{r:.2f}" for r in ratio)
        print(f"\nfastdesk's cold time ÷ mdpo-llm's, run by run: {each}")
    if args.json:
        rows = [asdict(p) for p in results]
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
