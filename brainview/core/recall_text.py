"""Recall's text side: what a draft asks about, as query terms, and the lesson text indexed.

Both sides go through the same steps, so a lesson and a draft meet on the same words:
``[user:<id>]`` tokens are expanded to the referenced neurons' titles, text is folded to
lower-case words (letters and digits of any script), stop words and ids are dropped.
Stemming is left to the index (FTS5's ``porter`` tokenizer, applied to both sides).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from brainview.core.refs import USER_REF, parse_refs

WORD = re.compile(r"[^\W_]+", re.UNICODE)
ID_LIKE = re.compile(r"^(?=.*\d)[a-z0-9]+$")
"""Hex-ish fragments of ids (``n``, ``7f3a``…) carry no meaning for a lexical match."""
MAX_TERMS = 48
MAX_QUERY_CHARS = 20_000

_STOP_WORDS = """a about above after again against all am an and any are as at be because been
    before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers him his how i if in into is it its itself just
    me more most my no nor not now of off on once only or other our out over own same she should
    so some such than that the their them then there these they this those through to too under
    until up very was we were what when where which while who whom why will with would you your
    yours also into via per one two get got let make made use used using"""
STOP = frozenset(_STOP_WORDS.split())

KIND_WORDS: dict[str, str] = {
    "merge_neurons": "merge merging merged duplicate",
    "retire_neuron": "retire retiring retired duplicate",
    "add_synapse": "link",
    "remove_synapse": "remove link unlink",
    "set_synapse_weight": "weight raising lowering",
    "set_domain": "domain move",
    "rename_domain": "rename renaming domain naming",
    "merge_domains": "merge domain",
    "edit_content": "edit rewrite content",
    "note": "",
}
"""Words a lesson about each kind tends to use (the kind's name alone rarely appears)."""

SYNAPSE_WORDS: dict[str, str] = {
    "requires": "requires prerequisite direction",
    "extends": "extends example",
    "contrasts": "contrasts confused",
    "relates_to": "relates",
    "summarizes": "summarizes",
}

REF_KEYS = ("keep", "merge", "neuron", "neurons", "pre", "post")
"""Params that name user neurons (the kinds of :mod:`brainview.core.kinds`)."""


@dataclass(frozen=True)
class Draft:
    """What a recall asks about: free text, user neurons, and optionally a draft's kind."""

    text: str = ""
    refs: tuple[str, ...] = ()
    kind: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)


def draft_from_proposal(raw: Mapping[str, Any], extra_refs: Iterable[str] = ()) -> Draft:
    """A :class:`Draft` from a proposal object (kind, params, rationale)."""
    params = raw.get("params") if isinstance(raw.get("params"), Mapping) else {}
    assert isinstance(params, Mapping)
    kind, rationale = raw.get("kind"), raw.get("rationale")
    kind = kind if isinstance(kind, str) else None
    rationale = rationale if isinstance(rationale, str) else ""
    strings = [v for v in _strings(params) if v not in _ids_in(params)]
    text = " ".join([rationale, *strings])
    refs = [*_ids_in(params), *parse_refs(rationale), *extra_refs]
    return Draft(text, tuple(dict.fromkeys(refs)), kind, params)


def _ids_in(params: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for key in REF_KEYS:
        value = params.get(key)
        values = value if isinstance(value, list) else [value]
        out.extend(v for v in values if isinstance(v, str) and v)
    return out


def _strings(value: Any, depth: int = 0) -> list[str]:
    if depth > 4:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _strings(v, depth + 1)]
    if isinstance(value, list):
        return [s for v in value[:50] for s in _strings(v, depth + 1)]
    return []


def expand_refs(content: str, titles: Mapping[str, str]) -> str:
    """``content`` with each ``[user:id]`` replaced by the neuron's title (or nothing)."""
    return USER_REF.sub(lambda m: f" {titles.get(m.group(1), '')} ", content or "")


def words(text: str) -> list[str]:
    """Lower-case content words of ``text``, in order, without stop words and id fragments."""
    out = []
    for w in WORD.findall((text or "")[:MAX_QUERY_CHARS].lower()):
        if len(w) > 1 and w not in STOP and not ID_LIKE.match(w) and len(w) <= 40:
            out.append(w)
    return out


def draft_text(draft: Draft, titles: Mapping[str, str]) -> str:
    """Everything a draft says, as plain text: its words, kind words and its neurons' titles."""
    parts = [expand_refs(draft.text, titles)]
    if draft.kind:
        parts.append(KIND_WORDS.get(draft.kind, draft.kind.replace("_", " ")))
        typ = draft.params.get("type")
        if isinstance(typ, str):
            parts.append(SYNAPSE_WORDS.get(typ, typ))
    parts.extend(titles.get(r, "") for r in draft.refs)
    return " ".join(parts)


def query_terms(text: str, limit: int = MAX_TERMS) -> list[str]:
    """Distinct content words of ``text`` (first ``limit``), the OR-terms of a lexical query."""
    return list(dict.fromkeys(words(text)))[:limit]
