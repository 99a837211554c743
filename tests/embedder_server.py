"""A deterministic stand-in embedder speaking the HTTP protocols Spikuit's providers speak
(``openai-compat``: ``POST {base}/embeddings``; ``ollama``: ``POST {base}/api/embed``),
started by the tests on a free local port.

A text's vector: each lower-case word (prefixes such as ``search_query:`` kept as words,
so a test can see them) is mapped through :data:`CONCEPTS` to a concept, hashed to a
coordinate with a sign, and the counts normalised — words of one concept ("merge",
"combine", "fuse") land on the same coordinate, so a query finds a lesson written in
other words, which plain BM25 cannot.  ``delay`` makes every answer late (timeout
tests), ``dimension`` may differ from the config's (mismatch tests), ``fail`` answers
HTTP 500.  Every request's inputs are recorded.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

CONCEPTS = {
    "merge": "merge", "merging": "merge", "combine": "merge", "combining": "merge",
    "fuse": "merge", "fusing": "merge", "unify": "merge", "duplicate": "merge",
    "duplicates": "merge", "platypus": "monotreme", "echidna": "monotreme",
    "monotreme": "monotreme", "egg": "monotreme", "laying": "monotreme",
}  # fmt: skip
_WORD = re.compile(r"[a-z_:]+")


def vector(text: str, dimension: int) -> list[float]:
    out = [0.0] * dimension
    for word in _WORD.findall(text.lower()):
        concept = CONCEPTS.get(word, word)
        h = hashlib.sha256(concept.encode()).digest()
        out[int.from_bytes(h[:4], "little") % dimension] += 1.0 if h[4] & 1 else -1.0
    norm = sum(x * x for x in out) ** 0.5 or 1.0
    return [x / norm for x in out]


class StandIn:
    """The server's settings and what it was asked."""

    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self.delay = 0.0
        self.fail = False
        self.requests: list[dict[str, Any]] = []
        self.url = ""


def _handler(state: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_args: Any) -> None:
            return

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append(
                {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
            )
            if state.delay:
                time.sleep(state.delay)
            if state.fail:
                self.send_response(500)
                self.end_headers()
                return
            vecs = [vector(t, state.dimension) for t in body["input"]]
            if self.path.endswith("/api/embed"):
                answer: dict[str, Any] = {"model": body["model"], "embeddings": vecs}
            elif self.path.endswith("/embeddings"):
                rows = [
                    {"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vecs)
                ]
                answer = {"object": "list", "data": rows[::-1], "model": body["model"]}
            else:
                self.send_response(404)
                self.end_headers()
                return
            data = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            with suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(data)

    return Handler


@contextmanager
def stand_in(dimension: int = 64) -> Iterator[StandIn]:
    """A running stand-in on 127.0.0.1 (``state.url`` is its base, without ``/v1``)."""
    state = StandIn(dimension)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def configure(
    config: Path,
    base_url: str,
    *,
    provider: str = "openai-compat",
    dimension: int = 64,
    prefix_style: str = "none",
    timeout: float = 30.0,
) -> None:
    """Write ``[embedder]`` into a Spikuit ``config.toml`` (keeping its ``[brain]``),
    the keys ``spikuit_core.config`` reads."""
    name = "brain"
    if config.exists():
        found = re.search(r'^name\s*=\s*"([^"]*)"', config.read_text(), re.M)
        name = found.group(1) if found else name
    config.write_text(
        f'[brain]\nname = "{name}"\n\n[embedder]\nprovider = "{provider}"\n'
        f'base_url = "{base_url}"\nmodel = "stand-in"\ndimension = {dimension}\n'
        f'prefix_style = "{prefix_style}"\ntimeout = {timeout}\n'
    )
