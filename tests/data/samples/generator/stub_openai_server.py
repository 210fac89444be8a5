"""A tiny OpenAI-compatible server for 127.0.0.1, made to run benchmark tools against.

It serves ``/v1/models``, ``/health``, ``/v1/completions`` and ``/v1/chat/completions`` (plain
JSON, or streamed as server-sent events with ``usage`` in a last chunk when
``stream_options.include_usage`` asks for it). It never runs a model: each reply is
``max_tokens`` words (``max_completion_tokens`` for chat; 16 when neither is given, at most
``--max-tokens``), one word a token for a whitespace tokenizer, the first after a random
``--first-ms`` delay and each next after ``--token-ms`` (± 20 %), so the latencies tools
measure are the stub's pace and say nothing about any engine.

Prompt tokens are counted as whitespace-separated words. The server stops by itself after
``--lifetime`` seconds. Only the standard library is used.

    python3 stub_openai_server.py --port 0 --port-file port.txt
"""

from __future__ import annotations

import argparse
import json
import random
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

MODEL = "stub-model"
WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")


class Settings:
    first_ms = (20.0, 50.0)
    token_ms = 5.0
    max_tokens = 512


def _prompt_tokens(body: dict[str, Any]) -> int:
    if "messages" in body:
        words = 0
        for message in body.get("messages") or []:
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, str):
                words += len(content.split())
            elif isinstance(content, list):
                for part in content:
                    if isinstance(part, dict) and isinstance(part.get("text"), str):
                        words += len(part["text"].split())
        return words
    prompt = body.get("prompt")
    if isinstance(prompt, list):
        prompt = " ".join(str(item) for item in prompt)
    return len(str(prompt or "").split())


def _output_tokens(body: dict[str, Any]) -> int:
    asked = body.get("max_completion_tokens") or body.get("max_tokens") or 16
    return max(1, min(int(asked), Settings.max_tokens))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a line per request would drown the benchmark tool's own output."""

    def _json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        path = self.path.split("?")[0].rstrip("/")
        if path in ("/health", "/v1/health", ""):
            self._json(200, {"status": "ok"})
        elif path == "/v1/models":
            self._json(
                200,
                {
                    "object": "list",
                    "data": [{"id": MODEL, "object": "model", "created": 0, "owned_by": "stub"}],
                },
            )
        else:
            self._json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self._json(400, {"error": {"message": "body is not JSON"}})
            return
        path = self.path.split("?")[0].rstrip("/")
        if path not in ("/v1/completions", "/v1/chat/completions"):
            self._json(404, {"error": {"message": f"no route {self.path}"}})
            return
        chat = path.endswith("chat/completions")
        rng = random.Random()
        words = [WORDS[rng.randrange(len(WORDS))] for _ in range(_output_tokens(body))]
        usage = {
            "prompt_tokens": _prompt_tokens(body),
            "completion_tokens": len(words),
            "total_tokens": _prompt_tokens(body) + len(words),
        }
        if body.get("stream"):
            self._stream(body, _envelope(chat, True), words, usage, rng)
        else:
            for _ in words:
                time.sleep(_pause(rng, first=False))
            text = " ".join(words)
            choice: dict[str, Any] = {"index": 0, "finish_reason": "length"}
            if chat:
                choice["message"] = {"role": "assistant", "content": text}
            else:
                choice["text"] = text
            self._json(200, _envelope(chat, False) | {"choices": [choice], "usage": usage})

    def _stream(
        self,
        body: dict[str, Any],
        envelope: dict[str, Any],
        words: list[str],
        usage: dict[str, int],
        rng: random.Random,
    ) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        chat = envelope["object"] == "chat.completion.chunk"
        for index, word in enumerate(words):
            time.sleep(_pause(rng, first=index == 0))
            text = word if index == 0 else " " + word
            last = index == len(words) - 1
            choice: dict[str, Any] = {"index": 0, "finish_reason": "length" if last else None}
            if chat:
                choice["delta"] = ({"role": "assistant"} if index == 0 else {}) | {"content": text}
            else:
                choice["text"] = text
            self._event(envelope | {"choices": [choice]})
        options = body.get("stream_options") or {}
        if isinstance(options, dict) and options.get("include_usage"):
            self._event(envelope | {"choices": [], "usage": usage})
        self._send_chunk(b"data: [DONE]\n\n")
        self._send_chunk(b"")

    def _event(self, payload: dict[str, Any]) -> None:
        self._send_chunk(b"data: " + json.dumps(payload).encode() + b"\n\n")

    def _send_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def _pause(rng: random.Random, *, first: bool) -> float:
    if first:
        return rng.uniform(*Settings.first_ms) / 1000
    return Settings.token_ms * rng.uniform(0.8, 1.2) / 1000


_COUNTER = iter(range(1, 10**9))
_LOCK = threading.Lock()


def _envelope(chat: bool, stream: bool) -> dict[str, Any]:
    with _LOCK:
        number = next(_COUNTER)
    kind = "chat.completion" if chat else "text_completion"
    return {
        "id": f"stub-{number}",
        "object": kind + (".chunk" if stream and chat else ""),
        "created": int(time.time()),
        "model": MODEL,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file", type=Path)
    parser.add_argument("--first-ms", type=float, nargs=2, default=[20.0, 50.0])
    parser.add_argument("--token-ms", type=float, default=5.0)
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--lifetime", type=float, default=900.0)
    args = parser.parse_args()
    Settings.first_ms = (args.first_ms[0], args.first_ms[1])
    Settings.token_ms = args.token_ms
    Settings.max_tokens = args.max_tokens
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    if args.port_file:
        args.port_file.write_text(f"{port}\n")
    print(f"stub OpenAI server on http://127.0.0.1:{port} for {args.lifetime:g} s", flush=True)
    threading.Timer(args.lifetime, server.shutdown).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
