"""Spikuit's embedder settings and the text it embeds, as plain values (no I/O).

Spikuit 0.7.1 reads ``[embedder]`` from a brain's ``config.toml``
(``spikuit_core.config._apply_config``): ``provider`` (``openai-compat`` | ``ollama`` |
``none``), ``base_url``, ``model``, ``dimension``, ``api_key``, ``timeout`` and
``prefix_style``.  A document is embedded as its content without YAML front matter,
``[Section: …]`` in front when the front matter names one, behind the document prefix of
its ``prefix_style``; a query behind the query prefix.  This module says the same, so a
vector brainview computes sits beside the ones ``spkt embed-all`` stored.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PROVIDERS = ("openai-compat", "ollama")
DEFAULT_URL = {"openai-compat": "http://localhost:1234/v1", "ollama": "http://localhost:11434"}
DEFAULT_MODEL = {
    "openai-compat": "text-embedding-nomic-embed-text-v1.5",
    "ollama": "nomic-embed-text",
}
_SEARCH = {"document": "search_document: ", "query": "search_query: "}
_REPRESENT = {
    "document": "",
    "query": "Represent this sentence for searching relevant passages: ",
}
PREFIXES: dict[str, dict[str, str]] = {
    "nomic": _SEARCH,
    "cohere": _SEARCH,
    "e5": {"document": "passage: ", "query": "query: "},
    "mxbai": _REPRESENT,
    "bge": _REPRESENT,
}
MAX_DIMENSION = 8192


@dataclass(frozen=True)
class EmbedConfig:
    """One embedder as Spikuit's config names it."""

    provider: str
    base_url: str
    model: str
    dimension: int
    api_key: str = "not-needed"
    timeout: float = 30.0
    prefix_style: str = "none"

    def key(self) -> str:
        """What a cached vector was made with: another model, dimension or prefix is
        another space (the URL is not: the same model served elsewhere is the same)."""
        raw = f"{self.provider}|{self.model}|{self.dimension}|{self.prefix_style}"
        return hashlib.sha256(raw.encode()).hexdigest()[:24]

    def describe(self) -> str:
        return f"{self.provider} {self.model} ({self.dimension} dimensions)"


def parse_config(data: Mapping[str, Any]) -> EmbedConfig | None | str:
    """The ``[embedder]`` table of a parsed ``config.toml``: a config, ``None`` for no
    embedder (absent, or ``provider = "none"``), or one line saying what is wrong."""
    emb = data.get("embedder")
    if not isinstance(emb, Mapping) or not emb:
        return None
    provider = emb.get("provider", "none")
    if provider == "none":
        return None
    if provider not in PROVIDERS:
        return f"unknown embedder provider {str(provider)[:40]!r}"
    dim = emb.get("dimension", 768)
    timeout = emb.get("timeout", 30.0)
    strings = [emb.get(k, "") for k in ("base_url", "model", "api_key", "prefix_style")]
    if not isinstance(dim, int) or isinstance(dim, bool) or not 1 <= dim <= MAX_DIMENSION:
        return "embedder dimension must be a whole number between 1 and 8192"
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
        return "embedder timeout must be a positive number"
    if not all(isinstance(s, str) for s in strings):
        return "embedder base_url, model, api_key and prefix_style must be strings"
    base_url, model, api_key, prefix = strings
    return EmbedConfig(
        provider=str(provider),
        base_url=(base_url or DEFAULT_URL[provider]).rstrip("/"),
        model=model or DEFAULT_MODEL[provider],
        dimension=dim,
        api_key=api_key or "not-needed",
        timeout=float(timeout),
        prefix_style=prefix or "none",
    )


def with_prefix(text: str, style: str, what: str) -> str:
    """``text`` behind the ``what`` (``document`` | ``query``) prefix of ``style``."""
    prefixes = PREFIXES.get(style)
    return text if prefixes is None else prefixes[what] + text


def document_text(content: str) -> str:
    """The text Spikuit embeds for a neuron (``Circuit._prepare_embed_text`` without a
    source's searchable metadata, which lessons do not have): when the content starts
    with ``---`` and has a second one, what follows it, stripped, with ``[Section: …]``
    in front when the lines between name a section; else the content as it is."""
    if not content.startswith("---"):
        return content
    parts = content.split("---", 2)
    if len(parts) < 3:
        return content
    body = parts[2].strip()
    section = ""
    for line in parts[1].strip().splitlines():
        key, colon, value = line.strip().partition(":")
        value = value.strip().strip('"').strip("'")
        if colon and value and key.strip() == "section":
            section = value
    return f"[Section: {section}] {body}" if section else body
