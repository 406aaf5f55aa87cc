"""The whole pipeline under fuzz, as the block splitter is: every CommonMark example and random
edits go through the engine, the live translator and the command line, and none may raise.

With an echo provider the output must be the input byte for byte; with a provider that answers
nonsense (nothing, half, broken markers) a block may fail but the run may not. Example counts
are bounded so the whole file stays a few seconds.
"""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastdesk.document.blocks import parse
from fastdesk.providers.base import ChatRequest, Provider
from fastdesk.routing.router import Router
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import BlockDone, BlockFailed, EngineEvent, RevisionDone
from fastdesk.translate.job import JobSpec
from fastdesk.translate.live import LiveTranslator
from fastdesk.translate.planning import document_title
from tests.fakes import FakeProvider, last_user, until
from tests.test_blocks import ENDINGS, FRAGMENTS, edited

SPEC = json.loads((Path(__file__).parent / "data" / "commonmark" / "spec.json").read_text("utf-8"))
EXAMPLES = [example["markdown"] for example in SPEC]
# What an editor has on screen at some moment: the empty heading once broke the title lookup.
EDITOR_STATES = ["## \n\ntext\n", "#\n", "# #\n\nx\n", "##   \n## \n", "## \n", "Title\n===\n"]

markdown_lines = st.lists(
    st.tuples(st.sampled_from(FRAGMENTS), st.sampled_from(ENDINGS)), max_size=15
).map(lambda lines: "".join(text + ending for text, ending in lines))
any_source = st.one_of(
    st.sampled_from(EXAMPLES + EDITOR_STATES), markdown_lines, st.text(max_size=60)
)


async def _run(
    text: str, answer: Callable[[ChatRequest], str] | None = None
) -> tuple[dict[str, str], list[EngineEvent]]:
    """One engine run over ``text``: its results and the events it emitted."""
    fake = FakeProvider() if answer is None else FakeProvider(answer=answer)
    engine = Engine(Router({"groq": cast(Provider, fake)}))
    events: list[EngineEvent] = []
    results = await engine.run(parse(text), JobSpec(), emit=events.append)
    return results, events


async def _translate(
    text: str, answer: Callable[[ChatRequest], str] | None = None
) -> dict[str, str]:
    """One engine run over ``text``; whatever the answers, it must not raise."""
    results, events = await _run(text, answer)
    settled = {e.block_id for e in events if isinstance(e, BlockDone | BlockFailed)}
    assert settled <= {b.id for b in parse(text).blocks}
    return results


def translate(text: str, answer: Callable[[ChatRequest], str] | None = None) -> dict[str, str]:
    return asyncio.run(_translate(text, answer))


def translate_all(
    texts: list[str], answer: Callable[[int], Callable[[ChatRequest], str]] | None = None
) -> list[dict[str, str]]:
    """Many runs in one event loop (a loop per example would cost more than the runs)."""

    async def every() -> list[dict[str, str]]:
        return [
            await _translate(text, None if answer is None else answer(n))
            for n, text in enumerate(texts)
        ]

    return asyncio.run(every())


def assembled(text: str, results: dict[str, str]) -> str:
    return "".join(results[b.id] for b in parse(text).blocks)


def test_the_first_heading_may_be_empty() -> None:
    """A 652-file run once ended in an IndexError on ``## `` with nothing after it."""
    assert document_title(parse("## \n\n# Real title\n")) == "Real title"
    assert document_title(parse("## \n\ntext\n")) == ""
    for text in EDITOR_STATES:
        assert assembled(text, translate(text)) == text


def test_every_commonmark_example_goes_through_the_engine_unchanged_by_an_echo() -> None:
    for text, results in zip(EXAMPLES, translate_all(EXAMPLES), strict=True):
        assert assembled(text, results) == text, text


def nonsense(seed: int) -> Callable[[ChatRequest], str]:
    rng = random.Random(seed)

    def answer(request: ChatRequest) -> str:
        text = last_user(request)
        return rng.choice(
            [
                "",
                text[: len(text) // 2],
                text.replace("<!--fd:", "<!--xx:"),
                "## ",
                text + "\n\n<!--fd:99-->\nextra",
                "<think>" + text,
                text.upper(),
                "\r\n".join(text.splitlines()),
            ]
        )

    return answer


def test_every_commonmark_example_survives_a_provider_that_answers_nonsense() -> None:
    """Failed blocks are allowed, an exception is not: every block ends once, done (its text in
    the results, as its event said) or failed (not in them), and the run's summary counts both."""

    async def every() -> list[tuple[dict[str, str], list[EngineEvent]]]:
        return [await _run(text, nonsense(n)) for n, text in enumerate(EXAMPLES)]

    failures = 0
    for text, (results, events) in zip(EXAMPLES, asyncio.run(every()), strict=True):
        ids = {b.id for b in parse(text).blocks}
        done = [(e.block_id, e.text) for e in events if isinstance(e, BlockDone)]
        failed = [e.block_id for e in events if isinstance(e, BlockFailed)]
        settled = [block_id for block_id, _text in done] + failed
        assert sorted(settled) == sorted(ids), text  # each block once, none lost
        assert results == dict(done), text
        (summary,) = [e for e in events if isinstance(e, RevisionDone)]
        assert (summary.blocks, summary.failed) == (len(ids), len(failed)), text
        failures += len(failed)
    assert failures  # the nonsense made blocks fail: not a run of echoes only


@settings(max_examples=100, deadline=None)
@given(any_source, st.integers(min_value=0, max_value=10**6))
def test_random_sources_and_answers_never_raise(source: str, seed: int) -> None:
    assert assembled(source, translate(source)) == source
    translate(source, nonsense(seed))


async def _settle(translator: LiveTranslator) -> None:
    await until(lambda: not translator.busy)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(EXAMPLES + EDITOR_STATES), st.integers(min_value=0, max_value=10**6))
def test_random_edits_through_the_live_translator_end_as_the_last_text(
    start: str, seed: int
) -> None:
    """Typing in the window: each pause in typing is an update; the last one wins, intact."""
    rng = random.Random(seed)
    texts = [start]
    for _ in range(rng.randint(1, 4)):
        texts.append(edited(rng, texts[-1]))

    async def scenario() -> str:
        router = Router({"groq": cast(Provider, FakeProvider())})
        translator = LiveTranslator(Engine(router), JobSpec(), lambda e: None)
        for revision, text in enumerate(texts, 1):
            translator.update(text, revision)
            await asyncio.sleep(rng.choice((0, 0, 0.001, 0.005)))
        await _settle(translator)
        final = translator.snapshot().text
        await translator.aclose()
        return final

    assert asyncio.run(scenario()) == texts[-1]


# ---- the command line, against the loopback emulator ------------------------------------------


@pytest.fixture(scope="module")
def emu():  # type: ignore[no-untyped-def]
    from tests.emulator import Emulator

    # no rate-limit headers: the limiter would keep to what they say
    with Emulator(rate_limits=None) as emulator:
        yield emulator


# Hundreds of requests in seconds: past the free tier's limits the limiter would make them wait.
NO_LIMITS = "".join(
    f'[rate_limits.groq."{model}"]\nrequests_per_minute = 0\ntokens_per_minute = 0\n'
    for model in ("*", "llama-3.1-8b-instant", "openai/gpt-oss-120b", "openai/gpt-oss-20b")
)


def _cli_env(monkeypatch: pytest.MonkeyPatch, emu: object) -> None:
    import os

    home = Path(os.environ["FASTDESK_HOME"])
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "settings.toml").write_text(NO_LIMITS, encoding="utf-8")
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    monkeypatch.setenv("GROQ_API_KEY", "gsk_test")
    monkeypatch.setenv("GROQ_BASE_URL", emu.groq_base_url)  # type: ignore[attr-defined]


def test_a_set_of_every_kind_of_document_is_written_whole(
    emu: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One command over many files (CommonMark examples and editor states): all written, exit 0."""
    from fastdesk.cli.main import run

    _cli_env(monkeypatch, emu)
    sources = [t for t in EXAMPLES[::9] if "\x00" not in t] + EDITOR_STATES
    inputs = []
    for n, text in enumerate(sources):
        path = tmp_path / "in" / f"doc{n:03}.md"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        inputs.append(str(path))
    out = tmp_path / "out"
    assert run(["translate", *inputs, "--out-dir", str(out), "--no-memory", "--to", "en"]) == 0
    for n, text in enumerate(sources):
        assert (out / f"doc{n:03}.md").read_bytes() == text.encode("utf-8")


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(any_source.filter(lambda t: "\x00" not in t), min_size=1, max_size=3))
def test_random_documents_through_the_command_line(
    emu: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sources: list[str]
) -> None:
    from fastdesk.cli.main import run
    from fastdesk.config.logs import reset_logging

    _cli_env(monkeypatch, emu)
    # a folder of its own for each example (hypothesis seeds `random` alike for every example)
    folder = Path(tempfile.mkdtemp(prefix="run", dir=tmp_path))
    inputs = []
    for n, text in enumerate(sources):
        path = folder / f"d{n}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        inputs.append(str(path))
    code = run(
        ["translate", *inputs, "--out-dir", str(folder / "out"), "--no-memory", "--to", "en"]
    )
    reset_logging()
    if any(_not_utf8(t) for t in sources):  # no UTF-8 file: refused as unreadable, none written
        assert code == 2 and not (folder / "out").exists()
        return
    assert code == 0
    for n, text in enumerate(sources):
        assert (folder / "out" / f"d{n}.md").read_bytes() == text.encode("utf-8")


def _not_utf8(text: str) -> bool:
    """Lone surrogates: what hypothesis may draw but no UTF-8 file can hold."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
