"""Importing a ``.learnings/`` tree into the agent brain.

Each entry becomes a ``reflection`` neuron: domain = the skill its file stands for,
``created_at`` = its date, ``source`` = ``learnings:<file>:<line>``; its tier and place
are kept in ``brainview_learning``.  A new entry that says what an earlier one said is
linked ``relates_to`` to the first wording (the group's *canonical* entry), which gains
one ``fire`` spike at the new entry's date: a use, so FSRS, the fading list and the tier
rules have a history.  "Says the same" is, first match wins: the same ``Pattern-Key``
(the skill's own key for a recurring lesson); a block naming an earlier block of its
kind in ``See Also`` (the skill links a repeat that way); a correction with the same fix
(the words after its arrow); or the same words
(:func:`~brainview.core.learnings_words.similar`, a block by its summary).  Blocks that
name each other in ``See Also`` are linked ``relates_to`` in any case.

Re-importing is idempotent: an entry is known by its line's bytes and occurrence
(:func:`~brainview.core.learnings_parse.entry_key`) wherever it moved; moved entries
are followed, new ones added.  A new entry resembling an invalidated lesson (its
tombstone) is not imported and is reported, and so is an invalidated entry that
reappears outside ``archive/``; so is a line whose text the write door's text rule
refuses (ESC, OSC, C1, bidi, NUL: :func:`~brainview.core.text_rules.row_problem`), which
stays in its file untouched while the rest of the tree is imported.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from fsrs import Rating, Scheduler
from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.core.learnings_parse import HOT_FILES, Entry, classify, entry_key, entry_kind, parse
from brainview.core.signals import text_flags
from brainview.core.text_rules import name_problem, row_problem
from brainview.services.learnings.repeats import Repeats
from brainview.services.learnings.tree import Tree, import_at, project_of, require_dir
from brainview.services.lifecycle import INVALIDATED, statuses
from brainview.services.lifecycle.tombstones import near_many
from brainview.services.project import Project
from brainview.store import learnings_files as lfiles
from brainview.store import learnings_rows as lrows
from brainview.store.bv_schema import ensure_schema
from brainview.store.effects import EffectLog
from brainview.store.era import Era
from brainview.store.rows import fetch_rows
from brainview.store.writers import fresh_card, write_spikes

LINK_WEIGHT = 0.5
SESSION = "learnings-import"
_Found = tuple[Entry, str, str, str]
"""One parsed entry: ``(entry, skill, tier, key)``."""
SCHEDULER = Scheduler(enable_fuzzing=False)


@dataclass
class ImportResult:
    root: str
    hot_file: str
    added: list[tuple[str, int, str]] = field(default_factory=list)
    """``(file, line, reflection id)`` of new entries."""
    moved: list[tuple[str, int, str]] = field(default_factory=list)
    unchanged: int = 0
    linked: int = 0
    """New entries linked to an earlier wording of the same lesson (a use)."""
    blocked: list[tuple[str, int, str]] = field(default_factory=list)
    """``(file, line, why)``: not imported (tombstoned text)."""
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """``(file, why)``: files not read."""
    free_lines: int = 0
    flagged: list[tuple[str, int, str]] = field(default_factory=list)
    """``(file, line, reason)``: entries imported with a suspicion signal (a risky
    imperative, hidden text), one per reason (a signal, never a refusal)."""

    def to_json(self) -> dict[str, object]:
        return {
            "root": self.root,
            "hot_file": self.hot_file,
            "added": [{"file": f, "line": n, "reflection": r} for f, n, r in self.added],
            "moved": [{"file": f, "line": n, "reflection": r} for f, n, r in self.moved],
            "unchanged": self.unchanged,
            "linked": self.linked,
            "blocked": [{"file": f, "line": n, "why": w} for f, n, w in self.blocked],
            "skipped": [{"file": f, "why": w} for f, w in self.skipped],
            "free_lines": self.free_lines,
            "flagged": [{"file": f, "line": n, "reason": w} for f, n, w in self.flagged],
        }


def hot_file_of(files: dict[str, bytes]) -> str:
    """``HOT.md``, or ``memory.md`` when only that exists (``~/self-improving/``)."""
    for name in HOT_FILES:
        if name in files:
            return name
    return HOT_FILES[0]


def scan(tree: Tree) -> tuple[list[_Found], ImportResult]:
    """Parse the tree: ``(entry, skill, tier, key)`` in a stable order, and a result
    holding what was skipped."""
    files, skipped = lfiles.read_tree(tree)
    result = ImportResult(str(tree.path), hot_file_of(files), skipped=skipped)
    seen: dict[bytes, int] = {}
    found: list[_Found] = []
    for rel in sorted(files, key=lambda r: (r.startswith("archive/"), r)):
        kind = classify(rel)
        if kind is None:
            continue
        if name_problem(rel):
            result.skipped.append((rel, "control or invisible characters in the name"))
            continue
        parsed = parse(rel, files[rel])
        covered = sum(e.span for e in parsed.entries)
        result.free_lines += max(0, len(parsed.lines) - covered)
        for e in parsed.entries:
            result.flagged += [(rel, e.line, why) for why in text_flags(e.text)]
            n = seen.get(e.key_text, 0)
            seen[e.key_text] = n + 1
            skill, tier = entry_kind(e, kind[0], kind[1])
            found.append((e, skill, tier, entry_key(e.raw, n)))
    return found, result


def import_tree(project: Project, root: str | Path, *, now: datetime | None = None) -> ImportResult:
    """Import (or re-import) ``root`` — a directory inside the project holding the
    agent brain (BadPathError otherwise) — into that brain (writable).  The brain
    records the tree's path relative to the project."""
    now = fsrs_math.ensure_utc(now or datetime.now(UTC)).replace(microsecond=0)
    agent = project.require_agent()
    tree = import_at(project_of(agent.path), root)
    found, result = scan(tree)
    with agent.write() as conn:
        ensure_schema(conn)
        lrows.ensure(conn)
        _merge(conn, agent.era, found, result, now)
        lrows.set_root(conn, tree.rel, result.hot_file)
    return result


def _when(date: str | None, now: datetime) -> datetime:
    if date:
        try:
            when = datetime.fromisoformat(date).replace(tzinfo=UTC)
        except ValueError:
            return now
        return min(when, now)
    return now


def _merge(
    conn: Connection, era: Era, found: list[_Found], result: ImportResult, now: datetime
) -> None:
    known = {r["entry_key"]: r for r in lrows.entries(conn)}
    states = statuses(conn, era, [r["neuron_id"] for r in known.values()])
    contents = _contents(conn, [r["neuron_id"] for r in known.values()])
    fresh_entries = {key: e for e, _s, _t, key in found if key not in known}
    fresh = {key: e.text for key, e in fresh_entries.items()}
    same = Repeats(known, contents, fresh_entries)
    buried_all = near_many(conn, fresh) if fresh else {}
    log = EffectLog(conn)
    new = _New()
    relocated: list[tuple[str, int, str, str]] = []
    touched: set[str] = set()
    now_s = fsrs_math.format_ts(now)
    for e, skill, tier, key in found:
        row = known.get(key)
        if row is not None:
            state = states.get(row["neuron_id"])
            dead = state is not None and state.state == INVALIDATED
            if dead and not e.file.startswith("archive/"):
                result.blocked.append((e.file, e.line, f"invalidated {row['neuron_id']}"))
            else:
                if (row["file"], row["line"], row["tier"]) != (e.file, e.line, tier):
                    relocated.append((e.file, e.line, tier, row["neuron_id"]))
                if (row["file"], row["tier"]) != (e.file, tier):  # another file: a move
                    result.moved.append((e.file, e.line, row["neuron_id"]))
                else:  # the same file (lines above it may have come or gone)
                    result.unchanged += 1
            continue
        buried = buried_all.get(key)
        if buried:
            why = f"resembles invalidated {buried[0].tombstone_id} ({buried[0].score:.2f})"
            result.blocked.append((e.file, e.line, why))
            continue
        nid = "r-" + hashlib.blake2b(key.encode(), digest_size=6).hexdigest()
        created = _when(e.date, now)
        canonical = same.find(key, e)
        neuron = _neuron(era, nid, e, skill, created, now_s)
        lrows_row = {
            "neuron_id": nid, "entry_key": key, "file": e.file, "line": e.line, "raw": e.raw,
            "skill": skill, "tier": tier, "tier_since": fsrs_math.format_ts(created),
            "entry_date": e.date, "status": e.status, "priority": e.priority,
            "block": int(e.block_id is not None), "canonical": canonical, "imported_at": now_s,
        }  # fmt: skip
        problem = row_problem("neuron", neuron) or row_problem("brainview_learning", lrows_row)
        if problem is not None:  # the write door would refuse the whole import: this line only
            result.blocked.append((e.file, e.line, problem))
            continue
        new.neurons.append(neuron)
        new.learning.append(lrows_row)
        touched.add(nid)
        if canonical is not None:
            new.links.append((nid, canonical))
            new.uses.append((canonical, fsrs_math.format_ts(created), f"learnings:use {e.file}"))
            touched.add(canonical)
            result.linked += 1
        same.add(nid, canonical or nid, key, e)
        known[key] = lrows_row
        result.added.append((e.file, e.line, nid))
    grouped = {frozenset(p) for p in new.links}
    added = {nid for _f, _n, nid in result.added}
    new.links += [tuple(sorted(p)) for p in same.see_also_pairs(added) - grouped]  # type: ignore[misc]
    new.write(log, era, now_s)
    lrows.relocate(conn, relocated, now_s)
    if era.card_source == "fsrs_state":
        _replay_cards(log, sorted(touched))


@dataclass
class _New:
    """What an import adds, written in one statement per table at the end (row by
    row, each linked synapse was read back with every link of its group: quadratic)."""

    neurons: list[dict[str, object]] = field(default_factory=list)
    learning: list[dict[str, object]] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)
    uses: list[tuple[str, str, str]] = field(default_factory=list)

    def write(self, log: EffectLog, era: Era, now_s: str) -> None:
        log.insert("neuron", self.neurons)
        log.insert("brainview_learning", self.learning)
        _link(log, era, self.links, now_s)
        uses: dict[tuple[str, str], list[tuple[str, int]]] = {}
        for canonical, fired, notes in self.uses:  # a use: one spike at the wording's date
            uses.setdefault((fired, notes), []).append((canonical, 3))
        for (fired, notes), spikes in uses.items():
            write_spikes(log, era, spikes, fired, SESSION, notes)


def _contents(conn: Connection, ids: list[str]) -> dict[str, str]:
    rows = fetch_rows(conn, "neuron", [(i,) for i in ids])
    return {k[0]: str(r.get("content") or "") for k, r in rows.items()}


def _neuron(
    era: Era, nid: str, e: Entry, skill: str, created: datetime, now_s: str
) -> dict[str, object]:
    at = fsrs_math.format_ts(created)
    row: dict[str, object] = {"id": nid, "content": e.text or "(empty)", "type": "reflection",
                              "domain": skill, "created_at": at}  # fmt: skip
    if "source" in era.neuron_cols:
        row["source"] = f"learnings:{e.file}:{e.line}"
    if "updated_at" in era.neuron_cols:
        row["updated_at"] = now_s
    return row


def learnings_root(path: Path) -> Path:
    """``path`` as a ``.learnings`` root to import, or a one-line error (missing, not a
    directory, a symlink)."""
    return require_dir(path)


def _link(log: EffectLog, era: Era, pairs: list[tuple[str, str]], now_s: str) -> None:
    """Each ``(new wording, canonical)`` pair linked ``relates_to`` both ways."""
    extra: dict[str, object] = {"co_fires": 0} if "co_fires" in era.synapse_cols else {}
    extra.update({c: now_s for c in ("created_at", "updated_at") if c in era.synapse_cols})
    both = sorted(((p, q) for a, b in pairs for p, q in ((a, b), (b, a))), key=lambda x: x[0])
    log.insert(  # by ``pre``: each read-back chunk then holds few canonicals (and their links)
        "synapse",
        [{"pre": p, "post": q, "type": "relates_to", "weight": LINK_WEIGHT, **extra}
         for p, q in both],
    )  # fmt: skip


def _replay_cards(log: EffectLog, ids: list[str]) -> None:
    """Each touched reflection's card, rebuilt from its spikes (no fuzz)."""
    cards = fetch_rows(log.conn, "fsrs_state", [(i,) for i in ids])
    made = lrows.created_at(log.conn, ids)
    inserts, updates = [], []
    for nid in ids:
        created = fsrs_math.parse_ts(made[nid])
        card = fresh_card(nid, created)
        for grade, at in lrows.spikes_of(log.conn, nid):
            when = max(fsrs_math.parse_ts(at), card.last_review or created)
            card, _log = SCHEDULER.review_card(
                card, fsrs_math.GRADE_TO_RATING.get(grade, Rating.Good), when
            )
        before = cards.get((nid,))
        if before is None:
            inserts.append({"neuron_id": nid, "card_json": card.to_json()})
        elif before["card_json"] != card.to_json():
            updates.append((before, {"card_json": card.to_json()}))
    log.insert("fsrs_state", inserts)
    log.update("fsrs_state", updates)
