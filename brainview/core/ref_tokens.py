"""``[user:id]`` references shown as ``⟦title⟧`` in editable text, and back.

An editor shows a person titles, not ids, yet what is stored must stay exact: each
reference becomes a token unique within the text (``⟦title⟧``, ``⟦title ·2⟧`` when two
neurons share a title) and :func:`stored_text` turns the tokens back.  Text the person
did not touch comes back byte for byte.  When a token would be ambiguous (the text
already holds it literally) nothing is named.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from brainview.core.refs import USER_REF, format_ref, parse_refs


def shown_text(text: str, titles: Mapping[str, str]) -> tuple[str, dict[str, str]]:
    """``text`` with known references as tokens, and token → reference for the way back."""
    tokens: dict[str, str] = {}
    by_id: dict[str, str] = {}
    for nid in parse_refs(text):
        title = titles.get(nid)
        if not title:
            continue
        token, n = f"⟦{title}⟧", 1
        while token in tokens:
            n += 1
            token = f"⟦{title} ·{n}⟧"
        tokens[token] = format_ref(nid)
        by_id[nid] = token
    if not tokens or any(token in text for token in tokens):
        return text, {}

    def named(match: re.Match[str]) -> str:
        return by_id.get(match.group(1), match.group(0))

    return USER_REF.sub(named, text), tokens


def stored_text(shown: str, tokens: Mapping[str, str]) -> str:
    """The edited text with every token back as its ``[user:id]`` reference."""
    for token in sorted(tokens, key=len, reverse=True):
        shown = shown.replace(token, tokens[token])
    return shown
