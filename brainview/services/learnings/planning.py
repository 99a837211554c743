"""The tier rules over the imported entries, queued as ``learning_tier`` proposals.

Nothing moves here: every move the rules call for becomes a pending proposal (skill
``learnings``), decided in the triage console or with ``brainview accept|reject`` like
any other; an entry with a pending move gets no second one.  The moved entry is
consulted (promotion: ``support``; demotion, archive: ``oppose``), so each decision
grades it like any other decision grades the lessons it consulted; a promotion also
consults the other wordings of the same lesson.  An invalidated entry's retirement to
``archive/`` consults nobody (an invalidated lesson is never graded).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.core.learnings_kinds import LEARNING_KIND
from brainview.core.learnings_parse import HOT, WARM, Entry, block_tier, parse, split_lines
from brainview.core.learnings_tiers import (
    PROMOTE,
    RETIRE,
    TIER_AFTER,
    EntryState,
    Item,
    Rules,
    plan,
    why_none,
)
from brainview.errors import BrainviewError, NotFoundError
from brainview.services.intake import parse_batch, store
from brainview.services.learnings.tree import Tree, tree_of
from brainview.services.lifecycle import INVALIDATED, LIVE, statuses
from brainview.services.project import Project
from brainview.store import learnings_files as lfiles
from brainview.store import learnings_rows as lrows
from brainview.store.era import Era

SKILL = "learnings"
HOT_LIMIT = 100
"""Lines the skills allow ``HOT.md`` (every session reads it)."""
RUNTIME = "brainview-learnings"


@dataclass
class PlanResult:
    queued: list[dict[str, object]] = field(default_factory=list)
    already_pending: int = 0
    why_empty: list[str] = field(default_factory=list)
    """When nothing is queued: why (one line per reason, with how many entries)."""

    def to_json(self) -> dict[str, object]:
        return {"queued": self.queued, "already_pending": self.already_pending,
                "why_empty": self.why_empty}  # fmt: skip


def states(conn: Connection, era: Era, rows: list[dict[str, Any]]) -> list[EntryState]:
    """The rules' view of every imported entry."""
    ids = [r["neuron_id"] for r in rows]
    used = lrows.uses(conn, ids)
    status = statuses(conn, era, ids)
    members: dict[str, list[str]] = {}
    for r in rows:
        members.setdefault(r["canonical"] or r["neuron_id"], []).append(r["neuron_id"])
    out: list[EntryState] = []
    for r in rows:
        st = status.get(r["neuron_id"])
        if st is None or (st.state not in (LIVE, INVALIDATED)):
            continue
        created = fsrs_math.parse_ts(r["tier_since"])
        made = created
        if r["entry_date"]:
            with contextlib.suppress(ValueError):
                made = min(datetime.fromisoformat(r["entry_date"]).replace(tzinfo=UTC), created)
        out.append(
            EntryState(
                neuron_id=r["neuron_id"],
                skill=r["skill"],
                tier=r["tier"],
                file=r["file"],
                line=int(r["line"]),
                raw=bytes(r["raw"]),
                created=made,
                tier_since=created,
                uses=tuple(used.get(r["neuron_id"], ())),
                invalidated=(st.reason or "") if st.state == INVALIDATED else None,
                block=bool(r["block"]),
                related=tuple(members.get(r["neuron_id"], ())),
            )  # fmt: skip
        )
    return out


def as_files_say(tree: Tree, entries: list[EntryState]) -> list[EntryState]:
    """Block entries as their files say now: the skill edits a block in place (its
    ``**Status**``, ``Recurrence-Count``, ``Last-Seen``), so the plan reads them from
    the file, not from the import."""
    wanted = sorted({e.file for e in entries if e.block})
    found: dict[str, dict[bytes, Entry]] = {}
    for rel in wanted:
        try:
            data = lfiles.read_file(tree, rel)
        except (BrainviewError, OSError):
            continue
        if data is not None:
            found[rel] = {x.key_text: x for x in parse(rel, data).entries if x.block_id}
    out: list[EntryState] = []
    for e in entries:
        now_e = found.get(e.file, {}).get(e.raw.rstrip(b"\r")) if e.block else None
        if now_e is None:
            out.append(e)
            continue
        tier = block_tier(now_e.status, e.tier) if e.tier in (HOT, WARM) else e.tier
        seen = None
        if now_e.last_seen:
            with contextlib.suppress(ValueError):
                seen = datetime.fromisoformat(now_e.last_seen).replace(tzinfo=UTC)
        out.append(replace(e, tier=tier, recurrence=now_e.used, last_seen=seen))
    return out


def _over_limit(item: Item, tree: Tree, hot_file: str) -> Item:
    """A promotion into a HOT file already at its 100-line limit says so."""
    if item.action != PROMOTE:
        return item
    try:
        data = lfiles.read_file(tree, hot_file) or b""
    except (BrainviewError, OSError):
        return item
    n = len(split_lines(data))
    if n < HOT_LIMIT:
        return item
    note = f" {hot_file} already has {n} lines (the skills keep it ≤ {HOT_LIMIT})."
    return replace(item, rationale=item.rationale + note)


def _proposal(item: Item, now: datetime) -> dict[str, object]:
    mv = item.move
    params: dict[str, object] = {
        "entry": item.entry.neuron_id, "action": item.action, "source": mv.source,
        "target": mv.target, "line": mv.line, "tier_from": item.entry.tier,
        "tier_to": TIER_AFTER[item.action],
    }  # fmt: skip
    if item.entry.block:
        params["block"] = True
    if item.action == RETIRE:
        params["reason"] = item.entry.invalidated or ""
    digest = hashlib.blake2b(
        json.dumps(params, sort_keys=True).encode() + now.isoformat().encode(), digest_size=6
    ).hexdigest()
    return {
        "id": f"learn-{digest}",
        "skill": SKILL,
        "kind": LEARNING_KIND,
        "params": params,
        "rationale": item.rationale,
        "consulted": [{"reflection": rid, "stance": s} for rid, s in item.consulted],
        "created_at": fsrs_math.format_ts(now),
        "runtime": RUNTIME,
    }


def _why_empty(
    entries: list[EntryState], rows: list[dict[str, Any]], live: int, now: datetime,
    rules: Rules, result: PlanResult,
) -> list[str]:  # fmt: skip
    """Why a plan queues nothing, for a person to read."""
    out: list[str] = []
    if result.already_pending:
        out.append(f"{result.already_pending} entries already have a pending move")
    if not rows:
        out.append("no entries imported (is the tree empty, or every line free-form?)")
    elif live < len(rows):
        out.append(f"{len(rows) - live} imported entries are retired or quarantined")
    out += why_none(entries, now, rules)
    return out


def plan_moves(
    project: Project, *, now: datetime | None = None, rules: Rules | None = None,
    dry_run: bool = False,
) -> PlanResult:  # fmt: skip
    """Queue every move the rules call for now (``dry_run``: only say which)."""
    now = fsrs_math.ensure_utc(now or datetime.now(UTC)).replace(microsecond=0)
    agent = project.require_agent()
    result = PlanResult()
    with agent.read() as conn:
        found = tree_of(conn)
        if found is None:
            raise NotFoundError("no .learnings tree imported yet (brainview learnings import DIR)")
        tree, hot_file = found
        rows = lrows.entries(conn)
        entries = states(conn, agent.era, rows)
        pending = lrows.pending_moves(conn)
    entries = as_files_say(tree, entries)
    items = [_over_limit(i, tree, hot_file) for i in plan(entries, now, hot_file, rules or Rules())]
    fresh = [i for i in items if i.entry.neuron_id not in pending]
    result.already_pending = len(items) - len(fresh)
    raw = [_proposal(i, now) for i in fresh]
    result.queued = raw
    if not raw:
        moving = {i.entry.neuron_id for i in items}
        quiet = [e for e in entries if e.neuron_id not in moving]
        result.why_empty = _why_empty(quiet, rows, len(entries), now, rules or Rules(), result)
    if dry_run or not raw:
        return result
    batch = parse_batch(raw, now)
    with agent.write() as conn:
        if lrows.pending_moves(conn) & {i.entry.neuron_id for i in fresh}:
            from brainview.errors import ConflictError

            raise ConflictError("another plan queued moves meanwhile; nothing queued, plan again")
        store(conn, batch, source="learnings", now=now)
    return result
