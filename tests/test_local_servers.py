"""Finding a local Ollama: /api/tags (a tiny stdlib server), /v1/models (the emulator), nothing
there, something else there, a silent server (the timeout holds), and remembering the choice."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from fastdesk.config.local_servers import (
    OLLAMA_BASE,
    detect_ollama,
    openai_base_url,
    use_local_server,
)
from fastdesk.config.settings import Settings, load_settings, save_settings
from tests.emulator import Emulator


class TinyServer:
    """Answers GET paths from a dict {path: (status, body)}; records the paths asked."""

    def __init__(self, routes: dict[str, tuple[int, object]]) -> None:
        self.routes = routes
        self.asked: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.asked.append(self.path)
                status, body = owner.routes.get(self.path, (404, {"error": "not found"}))
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> TinyServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


TAGS = {
    "models": [
        {"name": "qwen3:8b", "model": "qwen3:8b", "size": 5_000_000_000},
        {"name": "llama3.2:latest", "model": "llama3.2:latest"},
        {"model": "only-model-key"},
        "not an object",
    ]
}


def detect(base: str, timeout: float = 30.0) -> list[str] | None:
    """Detection with a timeout no loaded machine reaches on loopback (unless a test means it)."""
    return asyncio.run(detect_ollama(base, timeout=timeout))


@pytest.fixture
def outcomes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[type[BaseException], float | None]]:
    """How each of detection's requests ended when it failed: (the exception, the client's read
    timeout), so a refusal and a timeout are told apart without a stopwatch."""
    seen: list[tuple[type[BaseException], float | None]] = []
    real_get = httpx.AsyncClient.get

    async def recording_get(self: httpx.AsyncClient, url: Any, **kw: Any) -> httpx.Response:
        try:
            return await real_get(self, url, **kw)
        except Exception as exc:
            seen.append((type(exc), self.timeout.read))
            raise

    monkeypatch.setattr(httpx.AsyncClient, "get", recording_get)
    return seen


def test_ollama_tags() -> None:
    with TinyServer({"/api/tags": (200, TAGS)}) as server:
        assert detect(server.url) == ["qwen3:8b", "llama3.2:latest", "only-model-key"]
        assert server.asked == ["/api/tags"]


def test_running_ollama_without_models() -> None:
    with TinyServer({"/api/tags": (200, {"models": []})}) as server:
        assert detect(server.url) == []


def test_openai_compatible_server_via_v1_models() -> None:
    """The emulator's /compat prefix is an OpenAI-compatible server with no /api/tags."""
    with Emulator(models={"openai": ["qwen3:8b", "gemma3:4b"]}) as emu:
        base = f"{emu.url}/compat"
        assert detect(base) == ["qwen3:8b", "gemma3:4b"]
        assert [r.path for r in emu.requests] == ["/compat/api/tags", "/compat/v1/models"]
        assert detect(f"{base}/v1") == ["qwen3:8b", "gemma3:4b"]  # a /v1 URL works too


def test_something_else_on_the_port() -> None:
    with TinyServer({"/api/tags": (200, b"<html>hello</html>"), "/v1/models": (200, [1])}) as s:
        assert detect(s.url) is None


def test_nothing_listening(outcomes) -> None:
    """A port with no server answers at once: both paths end on the refusal, neither waits for
    its timeout (30 s here, unreached)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again below: a port with no server
    assert detect(f"http://127.0.0.1:{port}") is None
    assert outcomes == [(httpx.ConnectError, 30.0)] * 2


def test_silent_server_times_out(outcomes) -> None:
    """A server that accepts but never answers costs at most the timeout per path: each of the
    two paths ends on its timeout, the one given."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        port = sock.getsockname()[1]
        assert detect(f"http://127.0.0.1:{port}", timeout=0.2) is None
    assert len(outcomes) == 2
    assert all(issubclass(kind, httpx.TimeoutException) and t == 0.2 for kind, t in outcomes)


def test_proxy_settings_are_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    with TinyServer({"/api/tags": (200, TAGS)}) as server:
        assert detect(server.url) is not None


def test_openai_base_url() -> None:
    assert openai_base_url() == "http://127.0.0.1:11434/v1"
    assert openai_base_url("http://127.0.0.1:11434/") == "http://127.0.0.1:11434/v1"
    assert openai_base_url("http://h:1/v1") == "http://h:1/v1"
    assert OLLAMA_BASE == "http://127.0.0.1:11434"


def test_use_local_server_keeps_other_settings() -> None:
    save_settings(
        Settings(target_language="de", base_urls={"groq": "http://g"}, models={"groq": "x"})
    )
    saved = use_local_server(OLLAMA_BASE, "qwen3:8b")
    assert saved.base_urls == {"groq": "http://g", "openai": "http://127.0.0.1:11434/v1"}
    assert saved.models == {"groq": "x", "openai": "qwen3:8b"}
    reloaded, warnings = load_settings()
    assert warnings == [] and reloaded == saved
    assert reloaded.target_language == "de"
    assert reloaded.model_for("openai") == "qwen3:8b"
