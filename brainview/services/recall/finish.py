"""The last steps of a recall: R now for the candidates, what is still live (read
last, from the brain) and the policies that summarise the hits."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import numpy as np

from brainview.core import fsrs_math, recall_rank
from brainview.services.lifecycle import CHALLENGED, QUARANTINED, RECALLABLE, statuses
from brainview.services.project import Project
from brainview.services.recall.result import Hit, PolicyHit
from brainview.store import recall_graph
from brainview.store.cards import card_of
from brainview.store.recall_handle import Handle

TEXT_CHARS = 400


def retrievability_now(
    conn: Any, project: Project, ids: list[str], now: datetime
) -> dict[str, float | None]:
    """R now of each of ``ids`` (``None``: never reviewed)."""
    assert project.agent is not None
    era = project.agent.era
    out: dict[str, float | None] = {}
    if era.card_source == "fsrs_state":
        stored = recall_graph.stored_cards(conn, ids)
        got = [(r, fsrs_math.card_stability_lastreview(c)) for r, c in stored.items()]
        known = [(r, s, lr) for r, (s, lr) in got if s is not None and lr is not None]
        if known:
            rs = fsrs_math.retrievability(
                np.array([s for _r, s, _l in known]),
                np.array([lr.timestamp() for _r, _s, lr in known]),
                now,
            )
            out.update({r: float(v) for (r, _s, _l), v in zip(known, rs, strict=True)})
        return {r: out.get(r) for r in ids}
    with project.agent.read() as sa:
        for r in ids:
            card = card_of(sa, era, r)
            out[r] = None if card is None or card.stability is None else card.retrievability(now)
    return out


def final_filter(
    project: Project, hits: list[Hit], limit: int, *, spare: frozenset[str] = frozenset()
) -> tuple[list[Hit], set[str]]:
    """Drop what is not live now (read from the brain, last; a quarantined lesson in
    ``spare`` is kept); mark challenged; rank.  Also the quarantined ones dropped."""
    assert project.agent is not None
    with project.agent.read() as conn:
        found = statuses(conn, project.agent.era, [h.reflection for h in hits])
    kept = []
    quarantined: set[str] = set()
    for h in hits:
        st = found.get(h.reflection)
        if st is not None and st.state == QUARANTINED:
            if h.reflection not in spare:
                quarantined.add(h.reflection)
                continue
            h.state = QUARANTINED
        elif st is None or st.state not in RECALLABLE:
            continue
        if st.state == CHALLENGED:
            h.state = CHALLENGED
            h.score = round(h.score * recall_rank.CHALLENGED, 6)
        kept.append(h)
    kept.sort(key=lambda h: (-h.score, h.reflection))
    for i, h in enumerate(kept[:limit], start=1):
        h.rank = i
    return kept[:limit], quarantined


def policies_of(handle: Handle, project: Project, hits: list[Hit]) -> list[PolicyHit]:
    """The policies that summarise any of the hits, their text cut to ``TEXT_CHARS``."""
    assert project.agent is not None
    if not hits:
        return []
    with handle.lock, handle.reading() as conn:
        found = recall_graph.policies(conn, project.agent.era, [h.reflection for h in hits])
    return [PolicyHit(pid, text[:TEXT_CHARS], members) for pid, (text, members) in found.items()]
