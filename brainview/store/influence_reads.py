"""Aggregates behind a lesson's influence: the consulted lists, the recall log, the
held-back drafts and the grades of standing decisions, ``GROUP BY`` reflection.

Every function takes ``ids`` (only these reflections) or ``None`` (every reflection
with a row: the aggregate, never the brain); a missing table reads as empty (held-back
drafts may not exist yet in a brain, an old brain has no recall log).  Nothing writes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence

from brainview.store.rows import select_in

Counts = dict[str, dict[str, int]]
HELD_BACK, LESSONS = "brainview_held_back", "brainview_held_back_lesson"
VERDICTS = "brainview_held_back_verdict"
_AGREE = (
    "((COALESCE(c.stance, 'support') = 'support' AND d.verdict = 'accept') "
    "OR (c.stance = 'oppose' AND d.verdict = 'reject'))"
)


def tables(raw: sqlite3.Connection) -> set[str]:
    """Which of the tables read here exist."""
    return {
        str(n)
        for (n,) in raw.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (?,?,?,?,?,?,?,?)",
            ("brainview_consult", "brainview_decision", "brainview_proposal",
             "brainview_grade", "brainview_recall", HELD_BACK, LESSONS, VERDICTS),
        )
    }  # fmt: skip


def _grouped(
    raw: sqlite3.Connection, sql: str, ids: Sequence[str] | None, names: Sequence[str]
) -> Counts:
    """Run ``sql`` (``{where}``: the id filter on column ``rid``) into id → counts."""
    out: Counts = {}
    if ids is None:
        rows: Iterator[tuple] = iter(raw.execute(sql.replace("{where}", "1=1")))
    elif not ids:
        return out
    else:
        rows = select_in(raw, sql.replace("{where}", "rid IN ({marks})"), list(ids))
    for rid, *values in rows:
        acc = out.setdefault(str(rid), dict.fromkeys(names, 0))
        for name, v in zip(names, values, strict=True):
            acc[name] += int(v or 0)
    return out


CONSULT_NAMES = ("supported", "opposed", "swayed", "rejected_support", "accepted_support",
                 "decided", "accepted_oppose", "rejected_oppose")  # fmt: skip


def consult_counts(raw: sqlite3.Connection, ids: Sequence[str] | None) -> Counts:
    """Stances of the proposals that consulted each reflection, and their standing
    decisions: swayed (verdict agreed with the stance), supported then rejected or
    accepted, opposed then accepted or rejected, decided."""
    if not {"brainview_consult", "brainview_decision"} <= tables(raw):
        return {}
    sql = (
        "SELECT rid, SUM(st = 'support'), SUM(st = 'oppose'), SUM(agree), "
        "SUM(st = 'support' AND verdict = 'reject'), SUM(st = 'support' AND verdict = 'accept'), "
        "SUM(verdict IS NOT NULL), SUM(st = 'oppose' AND verdict = 'accept'), "
        "SUM(st = 'oppose' AND verdict = 'reject') FROM (SELECT c.reflection_id AS rid, "
        "COALESCE(c.stance, 'support') AS st, d.verdict AS verdict, "
        f"CASE WHEN d.id IS NOT NULL AND {_AGREE} THEN 1 ELSE 0 END AS agree "
        "FROM brainview_consult c LEFT JOIN brainview_decision d "
        "ON d.proposal_id = c.proposal_id AND d.undone_at IS NULL "
        "WHERE c.role = 'consulted') WHERE {where} GROUP BY rid"
    )
    return _grouped(raw, sql, ids, CONSULT_NAMES)


def recall_counts(raw: sqlite3.Connection, ids: Sequence[str] | None) -> Counts:
    """How many logged recalls returned each reflection (``json_each`` over the log)."""
    if "brainview_recall" not in tables(raw):
        return {}
    sql = (
        "SELECT rid, COUNT(*) FROM (SELECT j.value AS rid FROM brainview_recall r, "
        "json_each(CASE WHEN json_valid(r.neuron_ids) THEN r.neuron_ids ELSE '[]' END) j) "
        "WHERE {where} GROUP BY rid"
    )
    return _grouped(raw, sql, ids, ("recalled",))


def suppressed_counts(raw: sqlite3.Connection, ids: Sequence[str] | None) -> Counts:
    """Held-back drafts each reflection opposed (the tables may not exist yet)."""
    if not {HELD_BACK, LESSONS} <= tables(raw):
        return {}
    sql = (
        f"SELECT rid, COUNT(DISTINCT hid) FROM (SELECT l.reflection_id AS rid, h.id AS hid "
        f"FROM {LESSONS} l JOIN {HELD_BACK} h ON h.id = l.held_back_id "
        "WHERE l.stance = 'oppose') WHERE {where} GROUP BY rid"
    )
    return _grouped(raw, sql, ids, ("suppressed",))


def held_verdict_counts(raw: sqlite3.Connection, ids: Sequence[str] | None) -> Counts:
    """Standing held-back verdicts on drafts each reflection opposed: ``upheld`` (rightly
    held back) and ``overruled`` (should have been proposed)."""
    if not {LESSONS, VERDICTS} <= tables(raw):
        return {}
    sql = (
        "SELECT rid, SUM(v = 'rightly_held_back'), SUM(v = 'should_have_proposed') FROM ("
        f"SELECT l.reflection_id AS rid, v.verdict AS v FROM {LESSONS} l JOIN {VERDICTS} v "
        "ON v.held_back_id = l.held_back_id WHERE v.undone_at IS NULL AND l.stance = 'oppose') "
        "WHERE {where} GROUP BY rid"
    )
    return _grouped(raw, sql, ids, ("upheld", "overruled"))


def written_by_decision(raw: sqlite3.Connection, ids: Sequence[str] | None) -> Counts:
    """Reflections a standing decision, outcome or held-back verdict wrote (``attested``:
    1): their text is a recorded verdict's, not an unrecorded write into the brain."""
    have, parts = tables(raw), []
    if "brainview_decision" in have:
        parts.append("SELECT new_reflection_id AS rid FROM brainview_decision "
                     "WHERE new_reflection_id IS NOT NULL AND undone_at IS NULL")  # fmt: skip
    if VERDICTS in have and any(
        c == "new_reflection_id" for (_i, c, *_r) in raw.execute(f"PRAGMA table_info({VERDICTS})")
    ):
        parts.append(f"SELECT new_reflection_id AS rid FROM {VERDICTS} "
                     "WHERE new_reflection_id IS NOT NULL AND undone_at IS NULL")  # fmt: skip
    if not parts:
        return {}
    sql = f"SELECT rid, COUNT(*) FROM ({' UNION ALL '.join(parts)}) WHERE {{where}} GROUP BY rid"
    return _grouped(raw, sql, ids, ("attested",))


CORROBORATION_NAMES = ("confirmations", "contradictions", "deciders", "runtimes", "sources")


def corroboration_counts(raw: sqlite3.Connection, ids: Sequence[str] | None) -> Counts:
    """Standing decisions that graded each reflection fire/strong (confirmations) or
    miss (contradictions), plus maintainers' held-back verdicts on drafts it opposed;
    distinct deciders, runtimes and proposal sources among the confirmations."""
    have = tables(raw)
    parts = []
    if {"brainview_grade", "brainview_decision"} <= have:
        proposal = "brainview_proposal" in have
        parts.append(
            "SELECT g.reflection_id AS rid, CASE WHEN g.grade >= 3 THEN 1 "
            "WHEN g.grade = 1 THEN 0 ELSE NULL END AS ok, d.decider AS who, "
            + ("p.runtime AS rt, p.source AS src " if proposal else "NULL AS rt, NULL AS src ")
            + "FROM brainview_grade g JOIN brainview_decision d ON d.id = g.decision_id "
            + ("LEFT JOIN brainview_proposal p ON p.id = d.proposal_id " if proposal else "")
            + "WHERE d.undone_at IS NULL"
        )
    if {LESSONS, VERDICTS} <= have:
        parts.append(
            "SELECT l.reflection_id AS rid, CASE v.verdict WHEN 'rightly_held_back' THEN 1 "
            "ELSE 0 END AS ok, v.decider AS who, NULL AS rt, 'held-back' AS src "
            f"FROM {LESSONS} l JOIN {VERDICTS} v ON v.held_back_id = l.held_back_id "
            "WHERE v.undone_at IS NULL AND l.stance = 'oppose'"
        )
    if not parts:
        return {}
    sql = (
        "SELECT rid, SUM(ok = 1), SUM(ok = 0), COUNT(DISTINCT CASE WHEN ok = 1 THEN who END), "
        "COUNT(DISTINCT CASE WHEN ok = 1 THEN rt END), "
        "COUNT(DISTINCT CASE WHEN ok = 1 THEN src END) "
        f"FROM ({' UNION ALL '.join(parts)}) WHERE {{where}} GROUP BY rid"
    )
    return _grouped(raw, sql, ids, CORROBORATION_NAMES)


def score_sql(raw: sqlite3.Connection) -> str | None:
    """A ``SELECT rid, score`` over every reflection with influence (drafts shaped +
    decisions swayed), for ordering a listing in SQL; ``None``: nothing recorded."""
    have, parts = tables(raw), []
    if {"brainview_consult", "brainview_decision"} <= have:
        parts.append(
            "SELECT c.reflection_id AS rid, CASE WHEN COALESCE(c.stance, 'support') "
            f"IN ('support', 'oppose') THEN 1 ELSE 0 END + CASE WHEN d.id IS NOT NULL AND {_AGREE} "
            "THEN 1 ELSE 0 END AS sc FROM brainview_consult c LEFT JOIN brainview_decision d "
            "ON d.proposal_id = c.proposal_id AND d.undone_at IS NULL WHERE c.role = 'consulted'"
        )
    if {HELD_BACK, LESSONS} <= have:
        parts.append(
            f"SELECT l.reflection_id AS rid, 1 AS sc FROM {LESSONS} l "
            f"JOIN {HELD_BACK} h ON h.id = l.held_back_id WHERE l.stance = 'oppose'"
        )
    if not parts:
        return None
    return f"SELECT rid, SUM(sc) AS score FROM ({' UNION ALL '.join(parts)}) GROUP BY rid"


def content_and_created(raw: sqlite3.Connection, rid: str) -> tuple[str, object]:
    """A neuron's text and ``created_at`` (``("", None)`` when there is none)."""
    row = raw.execute("SELECT content, created_at FROM neuron WHERE id = ?", (rid,)).fetchone()
    return (str(row[0] or ""), row[1]) if row else ("", None)


def project_deciders(raw: sqlite3.Connection) -> int:
    """Distinct deciders of standing decisions and held-back verdicts in the brain."""
    present = tables(raw)
    parts = []
    if "brainview_decision" in present:
        parts.append("SELECT decider FROM brainview_decision WHERE undone_at IS NULL")
    if VERDICTS in present:
        parts.append(f"SELECT decider FROM {VERDICTS} WHERE undone_at IS NULL")
    if not parts:
        return 0
    sql = f"SELECT COUNT(DISTINCT decider) FROM ({' UNION ALL '.join(parts)})"
    return int(raw.execute(sql).fetchone()[0] or 0)
