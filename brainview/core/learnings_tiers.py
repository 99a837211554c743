"""The self-improving skills' tier rules, as items to decide instead of a cron's moves.

Pure.  For each imported entry (its tier, its file, its uses) the rules say whether it
should move; the services queue each move as a ``learning_tier`` proposal:

* WARM, used 3 times within 7 days → **promote** to HOT (the HOT file);
* HOT, unused for 30 days → **demote** to WARM (its skill's file);
* WARM, unused for 90 days → **archive** (``archive/<same path>``, COLD);
* HOT for 30+ days and used in the last 30 → **graduate** into ``AGENTS.md`` beside
  the ``.learnings`` directory;
* invalidated in brainview and still in a live file → **retire** to
  ``archive/invalidated.md`` with the reason (the tombstone blocks re-import).

A "use" is the entry's own date plus every spike of its reflection (repeats of the
same lesson found at import, and decisions that graded it).

Block entries (``## [LRN-…]``, the self-improving-agent skill's format) move the way
that skill moves them: by their ``**Status**``, staying in their file.  A pending block
used 3 times in 7 days is **promoted** into ``AGENTS.md`` (``graduate``: its summary
appended there as a rule, its status set to ``promoted`` with ``**Promoted**:
AGENTS.md``); an invalidated one is **retired** (``wont_fix``, recorded in
``archive/invalidated.md``).  The skill never demotes or archives a block by age, and
neither do these rules; a ``resolved``/``wont_fix`` block is COLD, a ``promoted`` one
GRADUATED (:func:`~brainview.core.learnings_parse.block_tier`).

:func:`why_none` says, when the rules call for no move, what each entry is waiting for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from brainview.core.learnings_edit import Move
from brainview.core.learnings_parse import COLD, GRADUATED, HOT, WARM, home_file

PROMOTE, DEMOTE, ARCHIVE, GRADUATE, RETIRE = "promote", "demote", "archive", "graduate", "retire"
ACTIONS = (PROMOTE, DEMOTE, ARCHIVE, GRADUATE, RETIRE)
AGENTS_FILE = "../AGENTS.md"
"""Graduation target: ``AGENTS.md`` in the directory holding ``.learnings``."""
INVALIDATED_FILE = "archive/invalidated.md"
TIER_AFTER = {PROMOTE: HOT, DEMOTE: WARM, ARCHIVE: COLD, GRADUATE: GRADUATED, RETIRE: COLD}
STANCE = {PROMOTE: "support", GRADUATE: "support", DEMOTE: "oppose", ARCHIVE: "oppose"}
"""How the moved entry is consulted: accepting a promotion confirms the lesson
(strong), accepting a demotion says it went unused (miss); a rejection the reverse."""


@dataclass(frozen=True)
class Rules:
    promote_uses: int = 3
    promote_days: int = 7
    demote_days: int = 30
    archive_days: int = 90
    graduate_days: int = 30
    recurrence_days: int = 30
    """The skill's own window: a block whose ``Recurrence-Count`` reached
    :attr:`promote_uses` and whose ``Last-Seen`` is this recent is promoted too."""


@dataclass(frozen=True)
class EntryState:
    neuron_id: str
    skill: str
    tier: str
    file: str
    line: int
    raw: bytes
    created: datetime
    tier_since: datetime
    uses: tuple[datetime, ...] = ()
    invalidated: str | None = None
    """The invalidation's reason (``None``: not invalidated)."""
    block: bool = False
    related: tuple[str, ...] = ()
    """The wordings of its lesson when it is the first (itself included; empty for a
    later wording, whose uses are its first wording's)."""
    recurrence: int = 0
    """A block's ``Recurrence-Count`` as its file says now (the skill's count)."""
    last_seen: datetime | None = None
    """A block's ``Last-Seen`` as its file says now."""


@dataclass(frozen=True)
class Item:
    action: str
    entry: EntryState
    move: Move
    rationale: str
    consulted: list[tuple[str, str]] = field(default_factory=list)


def _days(delta: timedelta) -> int:
    return int(delta.total_seconds() // 86_400)


def plan(entries: list[EntryState], now: datetime, hot_file: str, rules: Rules) -> list[Item]:
    """Every move the rules call for, in entry order."""
    items: list[Item] = []
    for e in entries:
        item = _one(e, now, hot_file, rules)
        if item is not None:
            items.append(item)
    return items


PROMOTED_MARK = "**Promoted**: AGENTS.md"


def _recent(e: EntryState, now: datetime, r: Rules) -> int:
    uses = {e.created, *e.uses}
    return sum(1 for u in uses if timedelta(0) <= now - u <= timedelta(days=r.promote_days))


def _block(e: EntryState, now: datetime, r: Rules) -> Item | None:
    """A block entry's move, by its status (see the module's docstring)."""
    if e.tier not in (HOT, WARM):
        return None
    if e.invalidated is not None:
        why = f"invalidated in brainview: {e.invalidated}" if e.invalidated else "invalidated"
        mv = Move(e.file, e.line, e.raw, INVALIDATED_FILE, (f"{why} ({now.date()})",),
                  status="wont_fix")  # fmt: skip
        return Item(RETIRE, e, mv, f"Retire {e.file}:{e.line} (**Status**: wont_fix): {why}.")
    recent = _recent(e, now, r)
    promote: str | None = None
    if recent >= r.promote_uses:
        promote = f"used {recent} times in the last {r.promote_days} days"
    elif e.recurrence >= r.promote_uses and _seen_lately(e, now, r):
        assert e.last_seen is not None
        promote = (
            f"Recurrence-Count {e.recurrence}, last seen {_days(now - e.last_seen)} days ago "
            f"(the skill's own count, within {r.recurrence_days} days)"
        )
    if promote is None:
        return None
    mv = Move(e.file, e.line, e.raw, AGENTS_FILE, status="promoted", marker=(PROMOTED_MARK,))
    return _item(GRADUATE, e, mv, f"Promote into AGENTS.md (**Status**: promoted): {promote}.")


def _seen_lately(e: EntryState, now: datetime, r: Rules) -> bool:
    if e.last_seen is None:
        return False
    return timedelta(0) <= now - e.last_seen <= timedelta(days=r.recurrence_days)


def _one(e: EntryState, now: datetime, hot_file: str, r: Rules) -> Item | None:
    if e.block:
        return _block(e, now, r)
    if e.tier == GRADUATED:
        return None
    uses = sorted({e.created, *e.uses})
    last = max(uses)
    idle = _days(now - last)
    if e.invalidated is not None:
        if e.tier == COLD or e.file == INVALIDATED_FILE:
            return None
        why = f"invalidated in brainview: {e.invalidated}" if e.invalidated else "invalidated"
        mv = Move(e.file, e.line, e.raw, INVALIDATED_FILE, (f"{why} ({now.date()})",))
        return Item(RETIRE, e, mv, f"Retire {e.file}:{e.line} to archive: {why}.")
    if e.tier == WARM:
        recent = [u for u in uses if timedelta(0) <= now - u <= timedelta(days=r.promote_days)]
        if len(recent) >= r.promote_uses:
            mv = Move(e.file, e.line, e.raw, hot_file)
            why = f"used {len(recent)} times in the last {r.promote_days} days"
            return _item(PROMOTE, e, mv, f"Promote to HOT ({hot_file}): {why}.")
        if idle >= r.archive_days:
            mv = Move(e.file, e.line, e.raw, f"archive/{e.file}")
            return _item(ARCHIVE, e, mv, f"Archive (COLD): unused for {idle} days.")
        return None
    if e.tier == HOT:
        if idle >= r.demote_days:
            target = home_file(e.skill)
            mv = Move(e.file, e.line, e.raw, target)
            return _item(DEMOTE, e, mv, f"Demote to WARM ({target}): unused for {idle} days.")
        held = _days(now - e.tier_since)
        if held >= r.graduate_days:
            mv = Move(e.file, e.line, e.raw, AGENTS_FILE)
            why = f"HOT for {held} days, last used {idle} days ago"
            return _item(GRADUATE, e, mv, f"Graduate into AGENTS.md: {why}.")
    return None


def _item(action: str, e: EntryState, mv: Move, rationale: str) -> Item:
    consulted = [(e.neuron_id, STANCE[action])]
    if action == PROMOTE or (e.block and action == GRADUATE):
        consulted += [(rid, "support") for rid in e.related if rid != e.neuron_id]
    return Item(action, e, mv, rationale, consulted)


def why_none(entries: list[EntryState], now: datetime, rules: Rules) -> list[str]:
    """Why the rules call for no move of these entries: one line per reason, with how
    many entries it holds back (empty when there are none)."""
    counts: dict[str, int] = {}
    most = 0

    def add(reason: str) -> None:
        counts[reason] = counts.get(reason, 0) + 1

    for e in entries:
        if e.tier == GRADUATED:
            add("already graduated or promoted (**Status**: promoted)")
        elif e.tier == COLD:
            add("COLD: archived, resolved or won't fix")
        elif e.invalidated is not None:
            add("invalidated and already in archive/invalidated.md")
        elif e.tier == WARM and not e.related:  # a later wording: its group's first counts
            add("WARM repeats of an earlier entry (their uses count for that entry)")
        elif e.tier == WARM:
            most = max(most, _recent(e, now, rules))
            if e.block:
                add(f"pending blocks with fewer than {rules.promote_uses} uses in the last "
                    f"{rules.promote_days} days and a Recurrence-Count under "
                    f"{rules.promote_uses} (blocks are never archived by age)")  # fmt: skip
            else:
                add(
                    f"WARM with fewer than {rules.promote_uses} uses in the last "
                    f"{rules.promote_days} days and used within {rules.archive_days} days"
                )
        else:
            add(f"HOT, used within {rules.demote_days} days and HOT for under "
                f"{rules.graduate_days} days")  # fmt: skip
    out = [f"{n} {reason}" for reason, n in counts.items()]
    if most:
        out.append(f"(the most uses any WARM entry has in {rules.promote_days} days: {most})")
    return out
