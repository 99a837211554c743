"""Stability history, forecasts, crossing days, the fading list and its decisions."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

import numpy as np
import pytest
from fsrs import Card, Scheduler

from brainview.core import fsrs_math
from brainview.errors import InvalidInputError, NotFoundError, ReadOnlyError
from brainview.services.communities import curves
from brainview.services.project import Project
from brainview.store.discovery import discover
from brainview.store.readmodel import spikes_of
from brainview.tui.widgets.throttled_plot import downsample


def test_replay_equals_py_fsrs_step_by_step(project, demo, now) -> None:  # type: ignore[no-untyped-def]
    _root, info = demo
    checked = 0
    for rid in info.reflection_ids[:40]:
        with project.agent.read() as conn:
            spikes = [(s.grade, fsrs_math.parse_ts(s.fired_at)) for s in spikes_of(conn, rid)]
        history = curves.stability_history(spikes, now)
        scheduler = Scheduler(enable_fuzzing=False)
        card = Card(card_id=0, due=spikes[0][1]) if spikes else None
        assert len(history) == len(spikes)
        for (grade, at), point in zip(sorted(spikes, key=lambda s: s[1]), history, strict=True):
            card, _ = scheduler.review_card(card, fsrs_math.GRADE_TO_RATING[grade], at)
            assert point.grade == grade and point.fired_at == at
            assert point.stability == card.stability and point.difficulty == card.difficulty
            assert point.days == pytest.approx((at - now).total_seconds() / 86_400)
            checked += 1
    assert checked > 60


def test_replayed_stability_matches_the_stored_card(project, demo, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    _root, info = demo
    ids = info.reflection_ids[:30]
    with project.agent.read() as conn:
        few = curves.reflection_cards(conn, project.agent.era, ids)  # one card at a time
        monkeypatch.setattr(curves, "FEW", 0)
        stab, last = curves.reflection_cards(conn, project.agent.era, ids)  # bulk SQL path
        assert np.array_equal(few[0], stab) and np.array_equal(few[1], last)
        for k, rid in enumerate(ids):
            spikes = [(s.grade, s.fired_at) for s in spikes_of(conn, rid)]
            card, _ = fsrs_math.replay_spikes(spikes)
            assert stab[k] == pytest.approx(card.stability, rel=1e-12)
            assert last[k] == pytest.approx(card.last_review.timestamp())


@pytest.mark.parametrize("stability", [0.2, 1.5, 12.0, 300.0])
@pytest.mark.parametrize("elapsed", [0.0, 0.4, 3.0, 45.0])
@pytest.mark.parametrize("threshold", [0.5, 0.7, 0.9])
def test_crossing_day_is_the_closed_form_root(now, stability, elapsed, threshold) -> None:  # type: ignore[no-untyped-def]
    last = now - timedelta(days=elapsed)
    day = fsrs_math.crossing_day(stability, last, now, threshold)
    d, f = fsrs_math.decay_and_factor()
    closed = stability / f * (threshold ** (-1 / d) - 1) - elapsed
    assert day == pytest.approx(max(0.0, closed), abs=1e-9)
    if closed > 0:
        r = fsrs_math.retention_curve(elapsed + day, stability)
        assert float(r) == pytest.approx(threshold, abs=1e-12)
    vec = curves.crossing_days(np.array([stability]), np.array([last.timestamp()]), now, threshold)
    assert vec[0] == pytest.approx(day, abs=1e-6)


def test_forecast_falls_through_the_threshold_on_the_crossing_day(now) -> None:  # type: ignore[no-untyped-def]
    last = now - timedelta(days=2)
    curve = fsrs_math.forecast(5.0, last, now, 90)
    day = fsrs_math.crossing_day(5.0, last, now, 0.7)
    assert np.all(np.diff(curve) < 0)
    assert curve[int(np.floor(day))] >= 0.7 > curve[int(np.ceil(day))]


def test_fading_list_sorted_by_when_and_within_horizon(project, now) -> None:  # type: ignore[no-untyped-def]
    result = curves.fading(project, now, threshold=0.7, days=14)
    days = [r.crossing_days for r in result.rows]
    assert result.total == len(result.rows) > 0 and days == sorted(days)
    assert all(0 < d <= 14 for d in days)
    with project.agent.read() as conn:
        stab, last = curves.reflection_cards(conn, project.agent.era, [r.id for r in result.rows])
    for row, s, lr in zip(result.rows, stab, last, strict=True):
        elapsed = (now.timestamp() - lr) / 86_400
        assert float(fsrs_math.retention_curve(elapsed, s)) > 0.7
        assert float(fsrs_math.retention_curve(elapsed + row.crossing_days, s)) == pytest.approx(
            0.7
        )
    assert result.below_now > 0
    wider = curves.fading(project, now, threshold=0.7, days=60)
    assert wider.total >= result.total


def test_rescue_and_let_go_are_recorded_and_undone(demo, now) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    paths = discover(root)
    with Project.open(paths) as p:
        rows = curves.fading(p, now, threshold=0.7, days=14).rows
    first, second = rows[0].id, rows[1].id
    with Project.open(paths, write_agent=True) as p:
        kept = curves.decide_fading(p, first, "rescue", decider="ana", now=now, threshold=0.7)
        gone = curves.decide_fading(p, second, "let_go", decider="ana", now=now, threshold=0.7)
    with Project.open(paths) as p:
        by_id = {r.id: r for r in curves.fading(p, now, threshold=0.7, days=14).rows}
    assert by_id[first].decision == "rescue" and by_id[first].decision_id == kept
    assert by_id[second].decision == "let_go" and by_id[second].decision_id == gone
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    row = conn.execute(
        "SELECT reflection_id, action, decider, decided_at, threshold, retrievability, "
        "crossing_days FROM brainview_fading_decision WHERE id = ?",
        (kept,),
    ).fetchone()
    assert row[:5] == (first, "rescue", "ana", fsrs_math.format_ts(now), 0.7)
    assert row[5] == pytest.approx(rows[0].r_now) and row[6] == pytest.approx(rows[0].crossing_days)
    conn.close()
    with Project.open(paths, write_agent=True) as p:
        curves.undo_fading_decision(p, kept, actor="ana", now=now)
        with pytest.raises(NotFoundError):
            curves.undo_fading_decision(p, kept, actor="ana", now=now)
    with Project.open(paths) as p:
        by_id = {r.id: r for r in curves.fading(p, now, threshold=0.7, days=14).rows}
    assert by_id[first].decision is None and by_id[second].decision == "let_go"


def test_fading_decisions_refuse_bad_input(demo, now) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    paths = discover(root)
    with Project.open(paths, write_agent=True) as p:
        with pytest.raises(InvalidInputError):
            curves.decide_fading(
                p, info.reflection_ids[0], "forget", decider="a", now=now, threshold=0.7
            )
        with pytest.raises(NotFoundError):
            curves.decide_fading(p, "r-nope", "rescue", decider="a", now=now, threshold=0.7)
        with pytest.raises(NotFoundError):  # a policy is not a reflection
            curves.decide_fading(
                p, info.policy_ids[0], "rescue", decider="a", now=now, threshold=0.7
            )
    with Project.open(paths) as p, pytest.raises(ReadOnlyError):
        curves.decide_fading(
            p, info.reflection_ids[0], "rescue", decider="a", now=now, threshold=0.7
        )


def test_reflection_detail_resolves_references(demo, now) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    live_user = next(u for u in info.user_ids if u not in info.retired_user_ids)
    retired = info.retired_user_ids[0]
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    conn.execute(
        "INSERT INTO neuron (id, content, type, domain, created_at, updated_at) "
        "VALUES ('r-refs', ?, 'reflection', 'curator', ?, ?)",
        (
            f"Keep [user:{live_user}] apart from [user:{retired}]; see [user:n-gone].",
            fsrs_math.format_ts(now),
            fsrs_math.format_ts(now),
        ),
    )
    conn.commit()
    conn.close()
    with Project.open(discover(root)) as p:
        d = curves.reflection_detail(p, "r-refs", now, threshold=0.7)
        assert [(r.neuron_id, r.status) for r in d.refs] == [
            (live_user, "live"),
            (retired, "retired"),
            ("n-gone", "dangling"),
        ]
        assert d.card is None and d.history == [] and d.forecast.size == 0 and d.crossing is None
        with p.agent.read() as aconn:
            names = curves.titles(p, aconn, ["r-refs"])["r-refs"]
        assert "↛ dangling⟧" in names and "⊘ retired⟧" in names and "[user:" not in names
        full = curves.reflection_detail(p, info.reflection_ids[0], now, threshold=0.7)
        assert full.history and full.card is not None
        assert full.forecast.size == curves.FORECAST_DAYS + 1
        assert full.history[-1].stability == pytest.approx(full.card.stability)
        with pytest.raises(NotFoundError):
            curves.reflection_detail(p, "r-missing", now, threshold=0.7)


def test_downsample_keeps_ends_and_extremes() -> None:
    x = np.arange(10_000, dtype=float)
    y = np.sin(x / 300) + (x == 4_321) * 5
    dx, dy = downsample(x, y, 200)
    assert dx.size <= 202 and dx[0] == 0 and dx[-1] == 9_999
    assert dy.max() == y.max() and dy.min() == y.min()
    assert np.all(np.diff(dx) > 0)
    same_x, same_y = downsample(x[:50], y[:50], 200)
    assert same_x.size == 50 and np.array_equal(same_y, y[:50])
