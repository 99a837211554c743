"""Reflection lifecycle states and the suspicion flags a proposal carries: names,
labels and the stored JSON, with no brain access (the console renders them before any
brain module is loaded)."""

from __future__ import annotations

import json
from typing import Any

from brainview.core.vocabulary import mark

LIVE, CHALLENGED, INVALIDATED, RETIRED = "live", "challenged", "invalidated", "retired"
QUARANTINED = "quarantined"
"""Never recalled, nothing else changed (:mod:`brainview.services.lifecycle`)."""
MARK = {state: mark(state) for state in (LIVE, CHALLENGED, QUARANTINED, INVALIDATED, RETIRED)}
"""State labels that never rely on colour alone (glyphs from :mod:`brainview.core.vocabulary`)."""

SUSPICION_KINDS = (
    "challenged",
    "quarantined",
    "invalidated",
    "retired",
    "tombstone",
    "blast",
    "risky",
)
"""A proposal leaned on a challenged / quarantined / invalidated / retired reflection, on a
near-duplicate of an invalidated one, or was flagged from a blast radius."""


def decode_suspicion(value: str | None) -> list[dict[str, Any]]:
    """The flags stored in ``suspicion`` (a JSON list; other text is one ``note``)."""
    if not value:
        return []
    try:
        data = json.loads(value)
    except ValueError:
        return [{"kind": "note", "detail": value}]
    if not isinstance(data, list):
        return [{"kind": "note", "detail": value}]
    return [f for f in data if isinstance(f, dict)]


def add_flags(value: str | None, new: list[dict[str, Any]]) -> str | None:
    """``value`` plus ``new`` flags (an identical flag is not repeated)."""
    flags = decode_suspicion(value)
    flags += [f for f in new if f not in flags]
    return json.dumps(flags, ensure_ascii=True, sort_keys=True) if flags else None


def describe_flag(flag: dict[str, Any]) -> str:
    """One plain-text line (untrusted: show it through ``safe_text``)."""
    rid, role = flag.get("reflection", "?"), flag.get("role", "consulted")
    head = {
        "challenged": f"{role} reflection {rid} is challenged",
        "quarantined": f"{role} reflection {rid} is quarantined",
        "invalidated": f"{role} reflection {rid} was invalidated",
        "retired": f"{role} reflection {rid} is retired",
        "tombstone": f"{role} reflection {rid} resembles invalidated {flag.get('match', '?')}"
        f" (similarity {float(flag.get('score', 0)):.2f})",
        "blast": f"stale by suspicion: {role} reflection {rid} was {flag.get('verb', 'flagged')}",
        "risky": f"{flag.get('field', 'text')} is risky",
    }.get(str(flag.get("kind")), "suspicious")
    detail = flag.get("detail")
    return f"{head}: {detail}" if detail else head


def describe_suspicion(value: str | None) -> list[str]:
    """Every flag of a ``suspicion`` value as one plain-text line."""
    return [describe_flag(f) for f in decode_suspicion(value)]


_TEXT_FIELDS = 20
"""At most this many string fields of a proposal are scanned for risky text."""


def risky_flags(rationale: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """``risky`` flags for a proposal's own text: its rationale and its string params
    (a policy, a lesson, new content), one per reason found (signals, never refusals).
    The matchers are imported here: the first paint only decodes flags."""
    from brainview.core.hidden_text import hidden_reason
    from brainview.core.risky import risk_reasons

    texts = [("rationale", rationale)]
    texts += [(f"params.{k}", v) for k, v in params.items() if isinstance(v, str)]
    flags = []
    for name, value in texts[:_TEXT_FIELDS]:
        hidden = hidden_reason(value)
        for reason in risk_reasons(value) + ([hidden] if hidden else []):
            flags.append({"kind": "risky", "field": name, "detail": reason})
    return flags
