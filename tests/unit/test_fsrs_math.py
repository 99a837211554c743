"""brainview.core.fsrs_math against the real py-fsrs scheduler (no event loop, seeded)."""

from __future__ import annotations

import json
import math
import random
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from fsrs import Card, Rating, Scheduler, State
from hypothesis import given, settings
from hypothesis import strategies as st

from brainview.core.fsrs_math import (
    GRADE_TO_RATING,
    ReplayStep,
    card_from_json,
    card_stability_lastreview,
    card_to_json,
    crossing_day,
    decay_and_factor,
    forecast,
    format_ts,
    parse_ts,
    replay_spikes,
    retention_curve,
    retrievability,
    retrievability_one,
    to_epoch_s,
)

T0 = datetime(2025, 1, 1, 8, 30, tzinfo=UTC)
DET = settings(derandomize=True, database=None, max_examples=200, deadline=None)


def _random_cards(n: int, seed: int) -> list[Card]:
    """n cards reviewed by real py-fsrs with random grades at random (increasing) times."""
    rng = random.Random(seed)
    scheduler = Scheduler(enable_fuzzing=False)
    cards = []
    for i in range(n):
        card = Card(card_id=i, due=T0)
        at = T0 + timedelta(
            seconds=rng.randrange(0, 400 * 86_400), microseconds=rng.randrange(10**6)
        )
        for _ in range(rng.choice([0, 0, 1, 2, 3, 5, 8])):  # some never reviewed
            card, _ = scheduler.review_card(card, Rating(rng.randint(1, 4)), at)
            at += timedelta(
                seconds=rng.expovariate(1 / (10 * 86_400)), microseconds=rng.randrange(10**6)
            )
        cards.append(card)
    return cards


def _arrays(cards: list[Card]) -> tuple[np.ndarray, np.ndarray]:
    """Bulk path: card JSON → (stability, last_review epoch s) with NaN for missing."""
    pairs = [card_stability_lastreview(c.to_json()) for c in cards]
    stab = np.array([np.nan if s is None else s for s, _ in pairs])
    last = np.array([np.nan if t is None else to_epoch_s(t) for _, t in pairs])
    return stab, last


def test_grade_mapping() -> None:
    assert {1: Rating.Again, 2: Rating.Hard, 3: Rating.Good, 4: Rating.Easy} == GRADE_TO_RATING


def test_decay_and_factor_match_scheduler() -> None:
    s = Scheduler()
    d, f = decay_and_factor()
    assert d == -s._DECAY == s.parameters[20]
    assert f == s._FACTOR


def test_vectorised_retrievability_matches_py_fsrs() -> None:
    cards = _random_cards(3_200, seed=20251130)
    scheduler = Scheduler()
    stab, last = _arrays(cards)
    assert np.isnan(stab).sum() > 300  # never-reviewed cards are covered
    reviewed = [c.last_review for c in cards if c.last_review is not None]
    nows = [T0 + timedelta(days=200, hours=5), max(reviewed) + timedelta(days=30), T0]
    # Exact day boundaries, and one microsecond either side, are where flooring bites.
    edge = reviewed[7]
    nows += [edge + timedelta(days=3, microseconds=k) for k in (-1, 0, 1)]
    future_seen = False
    for now in nows:
        got = retrievability(stab, last, now)
        want = np.array([scheduler.get_card_retrievability(c, now) for c in cards], dtype=float)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)
        future_seen |= any(c.last_review is not None and c.last_review > now for c in cards)
    assert future_seen  # some cards were reviewed after "now"
    for card in cards[:200]:
        assert retrievability_one(card, nows[0]) == pytest.approx(
            scheduler.get_card_retrievability(card, nows[0]), abs=1e-9
        )


def test_retrievability_exact_at_day_boundaries() -> None:
    """Reviews exactly k days (±1 µs) before now: float epoch maths alone gets some wrong."""
    rng = random.Random(11)
    scheduler = Scheduler()
    now = datetime(2026, 3, 14, 15, 9, 26, 535897, tzinfo=UTC)
    cards = [
        Card(
            card_id=i,
            state=State.Review,
            stability=rng.uniform(0.1, 400),
            difficulty=5.0,
            due=now,
            last_review=now
            - timedelta(days=rng.randrange(0, 900), microseconds=rng.choice([-1, 0, 1])),
        )
        for i in range(3_000)
    ]
    got = retrievability(*_arrays(cards), now)
    want = [scheduler.get_card_retrievability(c, now) for c in cards]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


def test_retrievability_floors_whole_days_and_handles_nan() -> None:
    d, f = decay_and_factor()
    last = to_epoch_s(T0)
    stab = np.array([5.0, 5.0, 5.0, np.nan, 5.0])
    lr = np.array([last, last, last, last, np.nan])
    nows = [T0 + timedelta(days=2, hours=23, minutes=59), T0 + timedelta(days=3)]
    r1, r2 = (retrievability(stab, lr, now) for now in nows)
    assert r1[0] == pytest.approx((1 + f * 2 / 5.0) ** -d, abs=1e-12)
    assert r2[0] == pytest.approx((1 + f * 3 / 5.0) ** -d, abs=1e-12)
    assert r1[3] == r1[4] == 0.0
    assert retrievability(stab, lr, T0 - timedelta(days=4))[0] == 1.0  # future review → R = 1


@DET
@given(st.lists(st.tuples(st.integers(1, 4), st.integers(0, 60 * 86_400)), min_size=1, max_size=12))
def test_replay_equals_step_by_step_reviews(raw: list[tuple[int, int]]) -> None:
    spikes, at = [], T0
    for grade, gap in raw:
        at += timedelta(seconds=gap)
        spikes.append((grade, at))
    card, steps = replay_spikes(spikes)
    scheduler = Scheduler(enable_fuzzing=False)
    want = Card(card_id=0, due=T0)
    assert card is not None and len(steps) == len(spikes)
    for (grade, fired_at), step in zip(spikes, steps, strict=True):
        want, _ = scheduler.review_card(want, GRADE_TO_RATING[grade], fired_at)
        assert step == ReplayStep(
            fired_at, grade, want.stability, want.difficulty, want.state, want.due
        )
    assert card.to_dict() == want.to_dict()


def test_replay_edge_cases() -> None:
    assert replay_spikes([]) == (None, [])
    a, _ = replay_spikes([(3, "2025-01-02T00:00:00Z"), (1, "2025-01-01 00:00:00")])
    b, _ = replay_spikes([(1, datetime(2025, 1, 1, tzinfo=UTC)), (3, datetime(2025, 1, 2))])
    assert a is not None and b is not None and a.to_dict() == b.to_dict()  # sorted by time
    with pytest.raises(ValueError):
        replay_spikes([(5, T0)])


@DET
@given(
    stability=st.floats(0.01, 36_500),
    elapsed=st.floats(-10, 2_000),
    threshold=st.floats(0.01, 0.99),
)
def test_crossing_day_solves_threshold_and_agrees_with_forecast(
    stability: float, elapsed: float, threshold: float
) -> None:
    now = T0 + timedelta(days=elapsed)
    c = crossing_day(stability, T0, now, threshold)
    assert c is not None and c >= 0.0
    t_now = (now - T0) / timedelta(days=1)
    if c > 0:
        r = retention_curve(t_now + c, stability)
        assert float(r) == pytest.approx(threshold, abs=1e-9)
    else:
        assert float(retention_curve(t_now, stability)) <= threshold + 1e-12
    curve = forecast(stability, T0, now, days=120)
    assert curve.shape == (121,)
    assert np.all(np.diff(curve) <= 0)
    offsets = np.arange(121)
    assert np.all(curve[offsets < c - 1e-6] >= threshold - 1e-12)
    assert np.all(curve[offsets > c + 1e-6] <= threshold + 1e-12)


def test_forecast_and_crossing_edge_cases() -> None:
    scheduler = Scheduler()
    card, _ = replay_spikes([(3, T0), (3, T0 + timedelta(days=3))])
    assert card is not None and card.stability is not None and card.last_review is not None
    now = card.last_review + timedelta(days=2)  # whole days: continuous == floored
    curve = forecast(card.stability, card.last_review, now, days=30)
    want = [scheduler.get_card_retrievability(card, now + timedelta(days=k)) for k in range(31)]
    np.testing.assert_allclose(curve, want, rtol=0, atol=1e-12)
    assert crossing_day(None, T0, T0, 0.9) is None
    assert np.all(forecast(None, T0, T0, days=5) == 0.0)
    assert crossing_day(1.0, T0, T0 + timedelta(days=400), 0.9) == 0.0
    # At t = S, R = 0.9 by construction of F.
    assert crossing_day(10.0, T0, T0, 0.9) == pytest.approx(10.0, abs=1e-9)
    with pytest.raises(ValueError):
        crossing_day(1.0, T0, T0, 0.0)


@pytest.mark.parametrize(
    "text",
    [
        "2026-11-30T09:00:00.123456+00:00",
        "2026-11-30T09:00:00.123456Z",
        "2026-11-30 09:00:00.123456+00:00",
        "2026-11-30 09:00:00.123456",
        "2026-11-30T11:00:00.123456+02:00",
    ],
)
def test_parse_ts_spellings(text: str) -> None:
    dt = parse_ts(text)
    assert dt == datetime(2026, 11, 30, 9, 0, 0, 123456, tzinfo=UTC)
    assert dt.tzinfo is UTC  # py-fsrs review_card insists on UTC
    assert format_ts(dt) == "2026-11-30T09:00:00.123456+00:00"


@DET
@given(st.datetimes(timezones=st.just(UTC)) | st.datetimes())
def test_format_parse_round_trip(dt: datetime) -> None:
    text = format_ts(dt)
    assert text.endswith("+00:00")
    assert parse_ts(text) == (dt if dt.tzinfo else dt.replace(tzinfo=UTC))
    assert parse_ts(text.replace("+00:00", "Z").replace("T", " ")) == parse_ts(text)


def test_card_json_round_trip() -> None:
    for card in _random_cards(60, seed=7):
        text = card.to_json()
        back = card_from_json(text)
        assert card_to_json(back) == text
        assert card_from_json(json.loads(text)).to_dict() == card.to_dict()
        assert card_stability_lastreview(text) == (card.stability, card.last_review)


def test_card_from_json_old_state_zero_and_missing_keys() -> None:
    old = {
        "due": "2024-03-01 10:00:00Z",
        "stability": 0,
        "difficulty": 0,
        "elapsed_days": 0,
        "scheduled_days": 0,
        "reps": 0,
        "lapses": 0,
        "state": 0,
        "last_review": None,
    }
    card = card_from_json(json.dumps(old))
    assert (card.state, card.step, card.stability, card.difficulty) == (
        State.Learning,
        0,
        None,
        None,
    )
    assert card.due == datetime(2024, 3, 1, 10, tzinfo=UTC)
    assert card_stability_lastreview(old) == (None, None)
    assert retrievability_one(card, T0) == 0.0
    reviewed, _ = Scheduler().review_card(card, Rating.Good, T0)  # usable by py-fsrs
    assert reviewed.stability is not None
    # Old state 0 with a stale non-null stability still counts as never scheduled.
    assert card_stability_lastreview({**old, "stability": 3.2})[0] is None
    review = card_from_json(
        {"state": 2, "stability": 4.5, "difficulty": 5.0, "last_review": "2024-03-01T10:00:00"}
    )
    assert review.step is None and review.due == review.last_review
    assert review.last_review == datetime(2024, 3, 1, 10, tzinfo=UTC)
    assert math.isclose(
        retrievability_one(review, T0), Scheduler().get_card_retrievability(review, T0)
    )
