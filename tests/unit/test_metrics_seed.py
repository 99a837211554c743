"""The seed's metrics against hand-computed values on a scripted decision history.

The project is a demo with no reflections and no queued proposals: its agent brain's
first neurons are the two demo policies, written at DEMO_NOW − 20 days, so the brain was
born on Tuesday 2026-11-10 09:00 UTC. Ages are whole weeks from then:

    age 0: [11-10 09:00, 11-17 09:00)   age 1: [11-17 09:00, 11-24 09:00)
    age 2: [11-24 09:00, 12-01 09:00)

Calendar weeks (named by their Monday): W1 11-09, W2 11-16, W3 11-23, W4 11-30.

    proposal runtime  verdict  decided (UTC)  seconds  week age
    p1       model-a  accept   11-10 12:00    40       W1   0
    p2       model-a  reject   11-12 12:00    60       W1   0
    p3       model-b  accept   11-16 10:00    10       W2   0
    p4       —        dismiss  11-17 08:00    5        W2   0
    p5       model-b  reject   11-17 10:00    30       W2   1   (relabelled policy kind)
    p6       model-a  accept   11-18 10:00    —        W2   1
    p7       model-b  accept   11-24 10:00    20       W3   2   (relabelled policy kind)
    p8       model-a  accept   11-25 10:00    50       W3   2
    p9       model-b  accept   11-25 11:00    999      W3   2   undone; (policy kind)
    p10      —        accept   11-30 10:00    15       W4   2   (relabelled policy kind)
    p11, p12 never decided
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime

import pytest
from test_cli import cli

from brainview.demo.generator import DemoSpec
from brainview.services import intake, metrics, review
from brainview.services.project import Project
from brainview.store.bv_schema_consolidation import ConsolidationRow, record_consolidation
from brainview.store.discovery import discover

W1, W2, W3, W4 = "2026-11-09", "2026-11-16", "2026-11-23", "2026-11-30"
RUNTIME = {"p1": "model-a", "p2": "model-a", "p3": "model-b", "p4": None, "p5": "model-b"}
RUNTIME |= {"p6": "model-a", "p7": "model-b", "p8": "model-a", "p9": "model-b", "p10": None}
RUNTIME |= {"p11": "model-a", "p12": None}
HISTORY = [
    ("p1", "accept", (11, 10, 12), 40),
    ("p2", "reject", (11, 12, 12), 60),
    ("p3", "accept", (11, 16, 10), 10),
    ("p4", "dismiss", (11, 17, 8), 5),
    ("p5", "reject", (11, 17, 10), 30),
    ("p6", "accept", (11, 18, 10), None),
    ("p7", "accept", (11, 24, 10), 20),
    ("p8", "accept", (11, 25, 10), 50),
    ("p9", "accept", (11, 25, 11), 999),
    ("p10", "accept", (11, 30, 10), 15),
]


def at(month: int, day: int, hour: int) -> datetime:
    """A 2026 UTC instant."""
    return datetime(2026, month, day, hour, tzinfo=UTC)


def _proposal(pid: str) -> dict[str, object]:
    raw: dict[str, object] = {
        "id": pid,
        "skill": "curator",
        "kind": "note",
        "params": {},
        "rationale": "scripted metrics history",
        "created_at": at(11, 10, 10).isoformat(),
    }
    if RUNTIME[pid] is not None:
        raw["runtime"] = RUNTIME[pid]
    return raw


@pytest.fixture
def scripted(make_demo):  # type: ignore[no-untyped-def]
    """The project after the scripted history above and two consolidations."""
    root, _ = make_demo(DemoSpec(reflections=0, proposals=0), "seed")
    with Project.open(discover(root), write_agent=True) as p:
        intake.submit(p, [_proposal(pid) for pid in RUNTIME], source="test", now=at(11, 10, 10))
        decided = {}
        for pid, verdict, (month, day, hour), secs in HISTORY:
            when = at(month, day, hour)
            if verdict == "dismiss":
                r = review.dismiss(p, pid, "aside", decider="m", now=when, seconds_on_screen=secs)
            else:
                r = review.decide(p, pid, verdict, decider="m", seconds_on_screen=secs, now=when)  # type: ignore[arg-type]
            decided[pid] = r.decision_id
        review.undo(p, decided["p9"], now=at(11, 25, 12), actor="m")
        assert p.agent is not None
        with p.agent.write() as conn:
            # Recorded out of planned order: the metric orders by planned_at.
            record_consolidation(
                conn,
                _plan("c-second", at(11, 24, 12)),
                [("p12", "shy"), ("p9", "sws"), ("p7", "rem"), ("p8", "rem")],
            )
            record_consolidation(
                conn,
                _plan("c-first", at(11, 11, 12)),
                [("p2", "sws"), ("p3", "sws"), ("p4", "shy"), ("p5", "shy"), ("p11", "rem")],
            )
    # Accepting a real summarize_community needs a community to summarise; the metric
    # reads only the proposal's kind and its standing decision, so relabel four notes.
    db = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    with db:
        db.execute(
            "UPDATE brainview_proposal SET kind = 'summarize_community' "
            "WHERE id IN ('p5', 'p7', 'p9', 'p10')"
        )
    db.close()
    return root


def _plan(cid: str, when: datetime) -> ConsolidationRow:
    return ConsolidationRow(cid, f"fp-{cid}", when.isoformat(), "test", {}, {}, 0)


def _metrics(root) -> metrics.AgentMetrics:  # type: ignore[no-untyped-def]
    with Project.open(discover(root)) as p:
        return metrics.agent_metrics(p, at(12, 1, 0), threshold=0.7, days=14)


def test_mac_by_week_and_by_agent_age(scripted) -> None:  # type: ignore[no-untyped-def]
    m = _metrics(scripted)
    assert m.agent_born_at == "2026-11-10T09:00:00+00:00"
    weeks = [(w.week, w.decisions, w.median_seconds) for w in m.decision_time]
    # W2: p6 is untimed (counted, not measured): median of 10, 5, 30. W3: p9 undone.
    assert weeks == [(W1, 2, 50), (W2, 4, 10), (W3, 2, 35), (W4, 1, 15)]
    ages = [(a.age_week, a.decisions, a.median_seconds) for a in m.decision_time_by_age]
    # age 0: 40, 60, 10, 5 → 25; age 1: 30 (+ untimed p6); age 2: 20, 50, 15 → 20.
    assert ages == [(0, 4, 25), (1, 2, 30), (2, 3, 20)]
    acc = [(w.week, w.skill, w.accepted, w.rejected) for w in m.acceptance]
    assert acc == [(W1, "curator", 1, 1), (W2, "curator", 2, 1), (W3, "curator", 2, 0)] + [
        (W4, "curator", 1, 0)
    ]


def test_split_by_runtime(scripted) -> None:  # type: ignore[no-untyped-def]
    m = _metrics(scripted)
    rows = [
        (r.runtime, r.decisions, r.median_seconds, r.accepted, r.rejected, r.dismissed, r.rate)
        for r in m.by_runtime
    ]
    assert rows == [
        ("model-a", 4, 50, 3, 1, 0, 0.75),  # p1 p2 p6 p8; timed 40 60 50
        ("model-b", 3, 20, 2, 1, 0, 2 / 3),  # p3 p5 p7 (p9 undone); 10 30 20
        ("unknown", 2, 10, 1, 0, 1, 1.0),  # p4 dismissed, p10; 5 15
    ]
    weekly = [
        (r.week, r.runtime, r.decisions, r.median_seconds, r.accepted, r.rejected, r.rate)
        for r in m.by_runtime_week
    ]
    assert weekly == [
        (W1, "model-a", 2, 50, 1, 1, 0.5),
        (W2, "model-a", 1, None, 1, 0, 1.0),
        (W2, "model-b", 2, 20, 1, 1, 0.5),
        (W2, "unknown", 1, 5, 0, 0, None),
        (W3, "model-a", 1, 50, 1, 0, 1.0),
        (W3, "model-b", 1, 20, 1, 0, 1.0),
        (W4, "unknown", 1, 15, 1, 0, 1.0),
    ]


def test_maintainer_seconds_per_accepted_change(scripted) -> None:  # type: ignore[no-untyped-def]
    """Every timed decision's seconds (rejects and dismissals too) over the accepts."""
    m = _metrics(scripted)
    weeks = [(w.week, w.seconds_per_accepted) for w in m.decision_time]
    # W1: (40 + 60) / 1. W2: (10 + 5 + 30) / 2 (p6 accepted, untimed). W3: (20 + 50) / 2.
    assert weeks == [(W1, 100), (W2, 22.5), (W3, 35), (W4, 15)]
    ages = [(a.age_week, a.seconds_per_accepted) for a in m.decision_time_by_age]
    assert ages == [(0, 57.5), (1, 30), (2, pytest.approx(85 / 3))]
    runtimes = [(r.runtime, r.seconds_per_accepted) for r in m.by_runtime]
    assert runtimes == [("model-a", 50), ("model-b", 30), ("unknown", 20)]
    weekly = {(r.week, r.runtime): r.seconds_per_accepted for r in m.by_runtime_week}
    assert weekly[(W2, "unknown")] is None  # a dismissal only: nothing accepted
    assert weekly[(W2, "model-a")] is None  # an accept, but untimed
    assert weekly[(W1, "model-a")] == 100


def test_policy_emergence(scripted) -> None:  # type: ignore[no-untyped-def]
    m = _metrics(scripted)
    # p7 and p10 accepted; p5 was rejected and p9's accept was undone.
    assert m.policies_accepted_per_week == {W3: 1, W4: 1}
    # Live policy neurons by creation week: the two demo policies (11-10).
    assert m.policies_per_week == {W1: 2}


def test_acceptance_over_successive_consolidations(scripted) -> None:  # type: ignore[no-untyped-def]
    m = _metrics(scripted)
    assert [c.id for c in m.consolidations] == ["c-first", "c-second"]
    first, second = (c.to_json() for c in m.consolidations)
    counts = ("n_items", "accepted", "rejected", "dismissed", "pending", "rate")
    assert [first[k] for k in counts] == [5, 1, 2, 1, 1, 1 / 3]
    assert [(p["phase"], *(p[k] for k in counts)) for p in first["phases"]] == [
        ("sws", 2, 1, 1, 0, 0, 0.5),
        ("shy", 2, 0, 1, 1, 0, 0.0),
        ("rem", 1, 0, 0, 0, 1, None),
    ]
    assert [second[k] for k in counts] == [4, 2, 0, 0, 2, 1.0]
    assert [(p["phase"], *(p[k] for k in counts)) for p in second["phases"]] == [
        ("shy", 1, 0, 0, 0, 1, None),
        ("sws", 1, 0, 0, 0, 1, None),  # p9: its accept was undone
        ("rem", 2, 2, 0, 0, 0, 1.0),
    ]
    assert first["planned_at"] == "2026-11-11T12:00:00+00:00" and first["planner"] == "test"


def test_fresh_brain_has_empty_seed_metrics(make_demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = make_demo(DemoSpec(reflections=0, proposals=0), "fresh")
    doc = _metrics(root).to_json()
    assert doc["agent_born_at"] == "2026-11-10T09:00:00+00:00"
    for key in ("decision_time_by_age", "by_runtime", "by_runtime_week", "consolidations"):
        assert doc[key] == []
    assert doc["policies_accepted_per_week"] == {}


def test_stats_json_reports_the_new_keys(scripted) -> None:  # type: ignore[no-untyped-def]
    out = cli("stats", str(scripted), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)["agent_metrics"]
    assert doc["decision_time_by_age"][0] == {
        "age_week": 0, "decisions": 4, "median_seconds": 25, "seconds_per_accepted": 57.5
    }  # fmt: skip
    assert doc["decision_time"][1] == {
        "week": W2, "decisions": 4, "median_seconds": 10, "seconds_per_accepted": 22.5
    }  # fmt: skip
    assert doc["by_runtime"][0] == {
        "runtime": "model-a",
        "decisions": 4,
        "median_seconds": 50,
        "seconds_per_accepted": 50,
        "accepted": 3,
        "rejected": 1,
        "dismissed": 0,
        "rate": 0.75,
    }
    assert doc["by_runtime_week"][-1]["week"] == W4
    assert doc["policies_accepted_per_week"] == {W3: 1, W4: 1}
    assert [c["id"] for c in doc["consolidations"]] == ["c-first", "c-second"]
    assert doc["consolidations"][1]["phases"][2] == {
        "phase": "rem",
        "n_items": 2,
        "accepted": 2,
        "rejected": 0,
        "dismissed": 0,
        "pending": 0,
        "rate": 1.0,
    }
    # The keys that were there before stay, unchanged in shape.
    assert {"acceptance", "decision_time", "policies_per_week", "at_risk"} <= set(doc)


def test_epochs_read_every_timestamp_spelling() -> None:
    from brainview.services.metrics.seed import epochs

    stamps = [
        "2026-11-30T09:00:00+00:00",
        "2026-11-30T09:00:00Z",
        "2026-11-30 09:00:00",
        "2026-11-30T09:00:00.250000+00:00",
        "2026-11-30T11:00:00+02:00",  # another offset: parsed one by one
        "2026-11-30T04:00:00-05:00",
    ]
    base = at(11, 30, 9).timestamp()
    assert list(epochs(stamps)) == [base, base, base, base + 0.25, base, base]
