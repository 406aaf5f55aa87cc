"""Clear words: every error on one line, server tracebacks reduced to their last line, hints that
name the variable to set, and the model a server chose named in the report."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from fastdesk.cli.main import run
from fastdesk.providers import errors
from fastdesk.providers.base import BadRequestError, ChatRequest, ProviderError
from fastdesk.providers.openai_compat import OpenAICompatProvider
from tests.emulator import Emulator, Fault

TRACEBACK = """Internal error
Traceback (most recent call last):
  File "/srv/app.py", line 12, in handler
    run()
  File "/srv/model.py", line 3, in run
    raise RuntimeError("CUDA out of memory")
RuntimeError: CUDA out of memory
"""


def test_server_text_becomes_one_line_and_a_traceback_its_last_line() -> None:
    text = errors.safe_text(TRACEBACK)
    assert text == "Internal error RuntimeError: CUDA out of memory"
    assert errors.safe_text("two\nlines\r\n\tand tabs") == "two lines and tabs"


async def _fail(provider: OpenAICompatProvider) -> ProviderError:
    request = ChatRequest(model=provider.default_model, messages=[{"role": "user", "content": "x"}])
    try:
        with pytest.raises(ProviderError) as info:
            async for _ev in provider.stream(request):
                pass
    finally:
        await provider.aclose()
    return info.value


def test_a_base_url_without_v1_that_gets_a_404_names_the_variable_to_set() -> None:
    with Emulator() as emu:
        provider = OpenAICompatProvider(f"{emu.url}/compat", default_model="local-model")
        error = asyncio.run(_fail(provider))
    assert isinstance(error, BadRequestError) and error.status == 404
    assert "does not end in /v1" in error.message and "FASTDESK_OPENAI_BASE_URL" in error.message


def test_no_model_configured_and_no_model_list_names_the_variable_to_set() -> None:
    with Emulator() as emu:
        emu.inject(Fault("status", status=404, on="models"))
        error = asyncio.run(_fail(OpenAICompatProvider(emu.openai_base_url)))
    assert isinstance(error, BadRequestError) and "FASTDESK_OPENAI_MODEL" in error.message


def test_a_server_error_with_a_traceback_is_one_line_on_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from fastdesk.config.settings import Settings, save_settings

    save_settings(Settings(requests={"retry_attempts": 1}))
    with Emulator() as emu:
        emu.fail_status(500, times=None, body={"error": TRACEBACK})
        monkeypatch.setenv("FASTDESK_OPENAI_BASE_URL", emu.openai_base_url)
        monkeypatch.setenv("FASTDESK_OPENAI_MODEL", "local-model")
        src = tmp_path / "a.md"
        src.write_text("Hello.\n")
        assert run(["translate", str(src), "-o", str(tmp_path / "o.md")]) == 1
    err = capsys.readouterr().err
    [line] = [x for x in err.splitlines() if "not translated" in x]
    assert "CUDA out of memory" in line and "Traceback" not in err and "File " not in err


def test_the_model_a_server_chose_is_named_in_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Emulator() as emu:
        monkeypatch.setenv("FASTDESK_OPENAI_BASE_URL", emu.openai_base_url)  # no model named
        src = tmp_path / "a.md"
        src.write_text("Hello.\n")
        report = tmp_path / "r.json"
        args = ["translate", str(src), "-o", str(tmp_path / "o.md"), "--report", str(report)]
        assert run(args) == 0
    [request] = json.loads(report.read_text())["requests"]
    assert request["model"] == "local-model"
