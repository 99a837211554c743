"""What a maintainer needs to judge an agent-brain item, beyond the consulted list.

For a policy (``summarize_community``): the **counter-examples** — members whose
recent grades are mostly misses (the lesson failed when used) and ``contrasts`` links
touching the members (lessons that say "but not when …") — and the **previous
policy** of the community with a text and member diff.  For every agent kind: the
change preview (the rows accepting it would write, computed by the code that applies
it) and the plan it came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from brainview.core.policy_text import PolicyDiff, diff, first_line
from brainview.core.refs import name_refs, parse_refs
from brainview.core.safe_text import first_line as title_line
from brainview.errors import ConflictError
from brainview.services.apply.describe import log_summary, preview_lines
from brainview.services.consolidate import apply_agent
from brainview.services.consolidate.gather import texts
from brainview.store.bv_schema_consolidation import item_of
from brainview.store.consolidate_reads import (
    content_of,
    contrasts_touching,
    last_grades,
    summarized_by,
)
from brainview.store.era import Era
from brainview.store.readmodel import neurons_by_ids
from brainview.store.rows import driver

MAX_COUNTER = 12


@dataclass(frozen=True)
class CounterExample:
    """A reason to doubt a policy: a failing member or a contrasting lesson."""

    reflection_id: str
    title: str
    why: str


@dataclass
class AgentItemView:
    """The agent-brain side of one consolidation item."""

    preview: list[tuple[str, str, str]] = field(default_factory=list)
    change_log: str = ""
    consolidation: str | None = None
    """``<plan id> · <phase>`` when it came from a queued consolidation."""
    counter_examples: list[CounterExample] = field(default_factory=list)
    previous_text: str | None = None
    previous_id: str | None = None
    diff: PolicyDiff | None = None
    draft: str | None = None
    """The planner's draft when the maintainer edited the text on accepting."""
    display_text: str | None = None
    """The policy text with ``[user:…]`` references named (``⟦title⟧``), for the screen."""


def counter_examples(conn: Connection, era: Era, members: list[str]) -> list[CounterExample]:
    """Members graded miss in most of their last three grades, then contrasts links."""
    raw = driver(conn)
    out: list[tuple[str, str]] = []
    for rid in members:
        grades = last_grades(raw, rid, 3)
        misses = sum(1 for g in grades if g == 1)
        if grades and misses * 2 > len(grades):
            out.append((rid, f"graded miss {misses} of its last {len(grades)} times"))
    mset = set(members)
    seen: set[tuple[str, str]] = set()
    for pre, post in contrasts_touching(raw, era, members):
        pair = (min(pre, post), max(pre, post))
        if pair in seen:
            continue
        seen.add(pair)
        other, member = (post, pre) if pre in mset else (pre, post)
        where = "a member too" if other in mset else "outside the community"
        out.append((other, f"{where}; contrasts member {member}"))
    heads = texts(conn, sorted({rid for rid, _w in out}), 400)
    titles = {rid: first_line(text, 90) or rid for rid, text in heads.items()}
    return [CounterExample(rid, titles.get(rid, rid), why) for rid, why in out[:MAX_COUNTER]]


def _previous(conn: Connection, era: Era, view: AgentItemView, p: dict[str, Any]) -> None:
    prev = p.get("previous_policy")
    if not prev:
        return
    raw = driver(conn)
    row = content_of(raw, str(prev))
    if row is None:
        return
    old_members = summarized_by(raw, era, str(prev))
    view.previous_id, view.previous_text = str(prev), row[0] or ""
    view.diff = diff(view.previous_text, old_members, str(p["text"]), set(p["members"]))


def item_view(
    conn: Connection,
    era: Era,
    proposal_id: str,
    kind: str,
    params: dict[str, Any],
    *,
    pending: bool,
    now: datetime,
) -> AgentItemView:
    """Preview (pending items), plan provenance and, for policies, the review aids."""
    view = AgentItemView()
    found = item_of(conn, proposal_id)
    if found:
        view.consolidation = f"{found[0]} · {found[1]}"
    if pending:
        cs = apply_agent.changeset(f"brainview:{proposal_id}", "preview", now)
        try:
            plan = apply_agent.plan_change(driver(conn), era, kind, params, cs)
        except ConflictError as err:
            view.change_log = f"cannot be applied: {err}"
        else:
            view.preview = preview_lines(plan)
            view.change_log = log_summary(plan) + " (in the agent brain)"
    else:
        view.change_log = "applied to the agent brain with the decision (undo restores it)"
    if kind == "summarize_community":
        view.counter_examples = counter_examples(conn, era, list(params["members"]))
        _previous(conn, era, view, params)
        view.draft = params.get("draft")
    return view


def name_item_refs(
    user_conn: Connection, user_era: Era, view: AgentItemView, params: dict[str, Any]
) -> None:
    """Name the ``[user:…]`` references of the policy text, the previous policy and the
    counter-examples (one batch read of the user brain); stored text is untouched."""
    text = str(params.get("text") or "")
    parts = [text, view.previous_text or "", *(c.title for c in view.counter_examples)]
    wanted = sorted({r for part in parts for r in parse_refs(part)})
    if not wanted:
        return
    users = neurons_by_ids(user_conn, user_era, wanted)
    known = {u.id: (title_line(u.content, 40) or u.id, u.live) for u in users.values()}
    view.display_text = name_refs(text, known) if text else None
    if view.previous_text is not None and view.diff is not None:
        view.diff = diff(
            name_refs(view.previous_text, known),
            set(view.diff.removed) | set(params.get("members", [])) - set(view.diff.added),
            view.display_text or text,
            set(params.get("members", [])),
        )
    view.counter_examples = [
        CounterExample(c.reflection_id, name_refs(c.title, known), c.why)
        for c in view.counter_examples
    ]
