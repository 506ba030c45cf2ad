"""The one fake the client's tests allow: the model. Local HTTP servers shaped like an OpenAI-compatible
chat-completions endpoint and like Anthropic's Messages API, answering with recorded completions and
`usage` blocks; the real SDK clients talk to them through `base_url`.

A server is driven by a list of replies consumed in order (`script`), then by `default`; each reply is
a `Reply` (JSON body and status, raw text, or a hang). Every request is recorded (path, headers, JSON).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CORRECT_ADD = (ROOT / "operators/solutions/triton_reference/aten__add.py").read_text()
WRONG_ADD = CORRECT_ADD.replace("y = x + alpha * z", "y = x - alpha * z")
assert WRONG_ADD != CORRECT_ADD


def fenced(code: str, prose: str = "Here is the kernel.") -> str:
    return f"{prose}\n\n```python\n{code}```\n\nIt handles broadcasting and strides."


@dataclasses.dataclass
class Reply:
    text: str | None = None  # the model's reply (a completion)
    usage: dict[str, Any] | None = None
    status: int = 200
    body: Any = None  # a raw JSON body instead of a completion
    raw: str | None = None  # a raw non-JSON body
    headers: dict[str, str] = dataclasses.field(default_factory=dict)
    hang_s: float = 0.0
    finish: str = "stop"
    model: str | None = None


OPENAI_USAGE = {
    "prompt_tokens": 1500,
    "completion_tokens": 900,
    "total_tokens": 2400,
    "prompt_tokens_details": {"cached_tokens": 512},
    "completion_tokens_details": {"reasoning_tokens": 300},
}
ANTHROPIC_USAGE = {
    "input_tokens": 120,
    "output_tokens": 700,
    "cache_creation_input_tokens": 80,
    "cache_read_input_tokens": 1400,
    "output_tokens_details": {"thinking_tokens": 250},
}


class FakeModelServer:
    shape = ""
    model = ""

    def __init__(self) -> None:
        self.script: list[Reply] = []
        self.default: Reply | Callable[[dict[str, Any]], Reply] = Reply(text="I cannot help with that.")
        self.requests: list[dict[str, Any]] = []
        self.models_reply: Reply | None = None  # what GET /models answers instead of the listing
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server._record(self, None)
                if self.path.rstrip("/").endswith("/models"):
                    reply = server.models_reply
                    if reply is not None:
                        self._send(reply.status, reply.body, reply.headers)
                    else:
                        self._send(200, server.models_body())
                else:
                    self._send(404, {"error": {"message": "not found", "type": "not_found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                payload = json.loads(self.rfile.read(length) or b"{}")
                server._record(self, payload)
                reply = server._next(payload)
                if reply.hang_s:
                    time.sleep(reply.hang_s)
                    try:
                        self._send(200, server.completion_body(payload, Reply(text="late")))
                    except OSError:
                        pass
                    return
                if reply.raw is not None:
                    data = reply.raw.encode()
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                body = reply.body if reply.body is not None else server.completion_body(payload, reply)
                self._send(reply.status, body, reply.headers)

            def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def start(self) -> FakeModelServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def _record(self, handler: BaseHTTPRequestHandler, payload: Any) -> None:
        with self._lock:
            self.requests.append(
                {
                    "method": handler.command,
                    "path": handler.path,
                    "headers": {k.lower(): v for k, v in handler.headers.items()},
                    "json": payload,
                }
            )

    def _next(self, payload: dict[str, Any]) -> Reply:
        with self._lock:
            if self.script:
                return self.script.pop(0)
        return self.default(payload) if callable(self.default) else self.default

    def completions(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["method"] == "POST"]

    def models_body(self) -> Any:
        raise NotImplementedError

    def completion_body(self, payload: dict[str, Any], reply: Reply) -> Any:
        raise NotImplementedError


class FakeOpenAI(FakeModelServer):
    model = "fake-coder-7b-2026-01-01"

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def models_body(self) -> Any:
        return {"object": "list", "data": [{"id": "fake-coder", "object": "model", "created": 0, "owned_by": "tests"}]}

    def completion_body(self, payload: dict[str, Any], reply: Reply) -> Any:
        return {
            "id": f"chatcmpl-{next(self._ids)}",
            "object": "chat.completion",
            "created": 1767225600,
            "model": reply.model or self.model,
            "system_fingerprint": "fp_test",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": reply.text}, "finish_reason": reply.finish}
            ],
            "usage": reply.usage or OPENAI_USAGE,
        }


class FakeAnthropic(FakeModelServer):
    model = "claude-fake-4-6-20260101"

    @property
    def base_url(self) -> str:
        return self.url

    def models_body(self) -> Any:
        return {
            "data": [
                {
                    "id": "claude-fake",
                    "type": "model",
                    "display_name": "Claude Fake",
                    "created_at": "2026-01-01T00:00:00Z",
                }
            ],
            "has_more": False,
            "first_id": "claude-fake",
            "last_id": "claude-fake",
        }

    def completion_body(self, payload: dict[str, Any], reply: Reply) -> Any:
        finish = {"stop": "end_turn", "length": "max_tokens"}.get(reply.finish, reply.finish)
        return {
            "id": f"msg_{next(self._ids)}",
            "type": "message",
            "role": "assistant",
            "model": reply.model or self.model,
            "content": [
                {"type": "thinking", "thinking": "Let me think.", "signature": "sig"},
                {"type": "text", "text": reply.text},
            ],
            "stop_reason": finish,
            "stop_sequence": None,
            "usage": reply.usage or ANTHROPIC_USAGE,
        }


def by_operator(replies: dict[str, list[Reply]], fallback: Reply | None = None) -> Callable[[dict[str, Any]], Reply]:
    """A default responder that picks the reply from the operator named in the prompt, in order per operator."""
    lock = threading.Lock()

    def respond(payload: dict[str, Any]) -> Reply:
        text = json.dumps(payload.get("messages", []))
        with lock:
            for operator, queue in replies.items():
                if f"`{operator}`" in text and queue:
                    return queue.pop(0)
        return fallback or Reply(text="No code, sorry.")

    return respond
