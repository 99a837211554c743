"""The project's embedder, as Spikuit configures and calls it: its ``config.toml`` read
safely, and the provider's HTTP protocol spoken with a bounded timeout.

Which config: the agent brain's own (``.spikuit/agent/config.toml``, the one ``spkt
embed-all`` uses on that brain, beside its ``circuit.db``), else the project's
(``.spikuit/config.toml``).  A config file is read only when it is a regular file inside
the project reached through no symbolic link, and at most 1 MB.

The protocol is Spikuit 0.7.1's (``spikuit_core.embedder``): ``openai-compat`` posts
``{"input": [...], "model": ...}`` to ``{base_url}/embeddings`` with ``Authorization:
Bearer {api_key}`` and reads ``data[].embedding`` in ``index`` order; ``ollama`` posts the
same body to ``{base_url}/api/embed`` and reads ``embeddings``.  The standard library's
``urllib`` does it (imported when a recall needs it), with a timeout of at most
:data:`QUERY_TIMEOUT` for a query and :data:`BATCH_TIMEOUT` for a batch of lessons,
whatever the config says (Spikuit's default is 30 s: a recall must not hang on it).
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

from brainview.core.embedding import EmbedConfig, parse_config
from brainview.store.path_kind import REGULAR, is_symlink, kind

QUERY_TIMEOUT = 2.0
BATCH_TIMEOUT = 10.0
MAX_CONFIG_BYTES = 1_000_000
MAX_RESPONSE_BYTES = 64_000_000


class EmbedError(Exception):
    """The provider could not give vectors (one line, for the fallback notice)."""


def config_paths(agent_db: Path, project_root: Path | None) -> list[Path]:
    """Where the agent brain's embedder may be configured, in order."""
    out = [agent_db.parent / "config.toml"]
    if project_root is not None:
        out.append(Path(project_root) / ".spikuit" / "config.toml")
    elif agent_db.parent.parent.name == ".spikuit":
        out.append(agent_db.parent.parent / "config.toml")
    return list(dict.fromkeys(out))


def find_config(agent_db: Path, project_root: Path | None) -> tuple[EmbedConfig | None, str]:
    """``(config, where)``: the first config naming an embedder, or ``(None, why)``."""
    root = Path(project_root) if project_root is not None else agent_db.parent.parent.parent
    problems: list[str] = []
    for path in config_paths(agent_db, project_root):
        text = _read_inside(path, root)
        if text is None:
            continue
        try:
            got = parse_config(tomllib.loads(text))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError, ValueError):
            problems.append(f"{path.name} in {path.parent.name}: not valid TOML")
            continue
        if isinstance(got, EmbedConfig):
            return got, str(path)
        if isinstance(got, str):
            problems.append(got)
    return None, problems[0] if problems else "no embedder configured"


def _read_inside(path: Path, root: Path) -> str | None:
    """The file's text when it is a regular file under ``root`` reached through no
    symbolic link (``None`` otherwise, or when missing)."""
    try:
        rel = path.absolute().relative_to(root.absolute())
    except ValueError:
        return None
    cur = root.absolute()
    for part in rel.parts:
        cur = cur / part
        if is_symlink(cur):
            return None
    if kind(path) != REGULAR:
        return None
    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        data = f.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        return None
    return data.decode("utf-8", errors="strict")


def embed(config: EmbedConfig, texts: list[str], *, timeout: float) -> Any:
    """One request to the provider for ``texts`` (already prefixed): a float32 array,
    one row per text.  EmbedError on any failure: unreachable, an HTTP error, a
    malformed answer, a wrong count or length, a non-finite number."""
    import urllib.error
    import urllib.request

    if config.provider == "ollama":
        url = f"{config.base_url}/api/embed"
        headers = {"Content-Type": "application/json"}
    else:
        url = f"{config.base_url}/embeddings"
        headers = {
            "Content-Type": "application/json",
            "Authorization": f"Bearer {config.api_key}",
        }
    if not url.startswith(("http://", "https://")):
        raise EmbedError(f"embedder base_url is not http(s): {config.base_url[:60]!r}")
    body = json.dumps({"input": texts, "model": config.model}).encode()
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    wait = min(config.timeout, timeout)
    try:
        with urllib.request.urlopen(request, timeout=wait) as resp:  # noqa: S310 (http(s) only)
            raw = resp.read(MAX_RESPONSE_BYTES + 1)
    except urllib.error.HTTPError as err:
        raise EmbedError(f"embedder answered HTTP {err.code} at {url[:80]}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise EmbedError(f"embedder unreachable at {url[:80]} ({str(reason)[:60]})") from None
    if len(raw) > MAX_RESPONSE_BYTES:
        raise EmbedError("embedder answer too large")
    return _vectors(config, raw, len(texts))


def _vectors(config: EmbedConfig, raw: bytes, count: int) -> Any:
    import numpy as np

    try:
        data: Any = json.loads(raw)
        if config.provider == "ollama":
            vecs = data["embeddings"]
        else:
            rows = sorted(data["data"], key=lambda x: x["index"])
            vecs = [r["embedding"] for r in rows]
    except (ValueError, KeyError, TypeError):
        raise EmbedError("embedder answer is not the provider's JSON") from None
    if not isinstance(vecs, list) or len(vecs) != count:
        got = len(vecs) if isinstance(vecs, list) else 0
        raise EmbedError(f"embedder returned {got} vectors for {count} texts")
    lengths = {len(v) if isinstance(v, list) else -1 for v in vecs}
    if lengths != {config.dimension} and count:
        wrong = ", ".join(str(n) for n in sorted(lengths - {config.dimension}))
        raise EmbedError(
            f"dimension mismatch: the embedder returned {wrong}, the config says {config.dimension}"
        )
    try:
        out = np.asarray(vecs, dtype=np.float32).reshape(count, config.dimension)
    except (ValueError, TypeError):
        raise EmbedError("embedder returned a vector with a non-number") from None
    if not np.isfinite(out).all():
        raise EmbedError("embedder returned a vector with a non-finite number")
    return out
