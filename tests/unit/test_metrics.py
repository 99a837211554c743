"""Agent-brain metrics and the communities' acceptance record, from real decisions."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

import pytest

from brainview.core import fsrs_math
from brainview.demo.generator import DemoSpec
from brainview.services import communities as svc
from brainview.services import intake, metrics, review
from brainview.services.communities import curves
from brainview.services.communities.runner import compute
from brainview.services.project import Project
from brainview.store.discovery import discover


def _decide(root, info, now):  # type: ignore[no-untyped-def]
    """Four note proposals consulting demo reflections, decided over two weeks; the last
    decision is undone.  Returns the decision results."""
    paths = discover(root)
    refl = info.reflection_ids
    raw = [
        {
            "id": f"prop-m{k}",
            "skill": "curator",
            "kind": "note",
            "params": {},
            "rationale": "metrics test",
            "consulted": [
                {"reflection": refl[k]},
                {"reflection": refl[k + 20], "stance": "oppose"},
            ],
            "created_at": fsrs_math.format_ts(now - timedelta(days=10)),
        }
        for k in range(4)
    ]
    week1 = now - timedelta(days=8)
    with Project.open(paths, write_agent=True) as p:
        intake.submit(p, raw, source="test", now=now - timedelta(days=10))
        out = [
            review.decide(p, "prop-m0", "accept", decider="a", seconds_on_screen=10, now=week1),
            review.decide(p, "prop-m1", "reject", decider="a", seconds_on_screen=30, now=week1),
            review.decide(p, "prop-m2", "accept", decider="a", seconds_on_screen=20, now=now),
            review.decide(p, "prop-m3", "reject", decider="a", seconds_on_screen=99, now=now),
        ]
        review.undo(p, out[3].decision_id, now=now, actor="a")
    return out


def test_weekly_acceptance_time_policies_and_risk(demo, now) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    _decide(root, info, now)
    with Project.open(discover(root)) as p:
        m = metrics.agent_metrics(p, now, threshold=0.7, days=14)
        fading = curves.fading(p, now, threshold=0.7, days=14)
    week1 = metrics.week_of(now - timedelta(days=8))
    week2 = metrics.week_of(now)
    assert week1 < week2
    by_week = {(w.week, w.skill): w for w in m.acceptance}
    assert by_week[(week1, "curator")].accepted == 1 and by_week[(week1, "curator")].rejected == 1
    assert by_week[(week1, "curator")].rate == 0.5
    assert by_week[(week2, "curator")].accepted == 1 and by_week[(week2, "curator")].rejected == 0
    times = {w.week: w for w in m.decision_time}
    assert times[week1].median_seconds == 20 and times[week1].decisions == 2
    assert times[week2].median_seconds == 20 and times[week2].decisions == 1  # undone one gone
    # The two theme policies (now − 20 d), plus any other live policy the demo writes.
    assert m.policies_per_week[metrics.week_of(now - timedelta(days=20))] == 2
    db = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    (live_policies,) = db.execute(
        "SELECT COUNT(*) FROM neuron WHERE type = 'policy' AND retired_at IS NULL"
    ).fetchone()
    db.close()
    assert sum(m.policies_per_week.values()) == live_policies
    assert m.at_risk is not None
    assert m.at_risk.within_days == fading.total and m.at_risk.below_now == fading.below_now
    doc = m.to_json()
    assert doc["acceptance"][0]["rate"] is not None and doc["at_risk"]["days"] == 14


def test_fresh_agent_brain_has_no_decisions(make_demo, now) -> None:  # type: ignore[no-untyped-def]
    root, _ = make_demo(DemoSpec(proposals=0), "fresh")
    with Project.open(discover(root)) as p:
        m = metrics.agent_metrics(p, now, threshold=0.7, days=14)
    assert m.acceptance == [] and m.decision_time == [] and m.at_risk.within_days > 0


def test_week_of_accepts_every_timestamp_spelling() -> None:
    assert metrics.week_of("2026-11-30T09:00:00+00:00") == "2026-11-30"  # a Monday
    assert metrics.week_of("2026-12-06 23:59:59Z") == "2026-11-30"
    assert metrics.week_of("2026-12-07T00:00:00") == "2026-12-07"


def test_community_acceptance_record_counts_standing_grades(demo, now) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    _decide(root, info, now)
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    strong, miss = conn.execute(
        "SELECT SUM(g.grade = 4), SUM(g.grade = 1) FROM brainview_grade g "
        "JOIN brainview_decision d ON d.id = g.decision_id WHERE d.undone_at IS NULL"
    ).fetchone()
    conn.close()
    assert strong == 3 and miss == 3  # support+oppose on 3 standing decisions (1 undone)
    with Project.open(discover(root)) as p:
        part = compute(p.agent, now_iso="x")
        data = svc.load_data(p, part, True, now)
        rows, _ = svc.community_rows(p, data, threshold=0.7, limit=1_000)
        misses, _ = svc.community_rows(p, data, threshold=0.7, sort="misses")
    # Every standing grade is counted once, in its reflection's community.
    assert sum(r.strong for r in rows) == strong and sum(r.miss for r in rows) == miss
    counts = [r.miss for r in misses]
    assert counts == sorted(counts, reverse=True) and counts[0] >= 1


@pytest.mark.parametrize("verdicts", [("accept",), ("reject", "reject")])
def test_rate_is_none_without_verdicts(verdicts) -> None:  # type: ignore[no-untyped-def]
    week = metrics.SkillWeek("2026-11-30", "curator", verdicts.count("accept"), 0)
    assert week.rate == (1.0 if "accept" in verdicts else None)
