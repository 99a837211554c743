"""FSRS maths for brainview: timestamps, card JSON, retrievability, replay and forecasts.

Pure Python + numpy + py-fsrs (``fsrs`` 6.x); no Textual, no database.  numpy is
imported by the vectorised functions when first called, not with the module: most
callers only want timestamps and cards, and every CLI process imports this.  Everything here
mirrors what Spikuit 0.7 does with ``fsrs.Scheduler()`` defaults, so numbers shown by
brainview agree with ``spkt``.

Retrievability follows py-fsrs exactly: ``R = (1 + F·t/S)^(−d)`` where ``t`` is the
elapsed time since the last review **floored to whole days** (``timedelta.days``) and
clamped at 0, ``d = parameters[20]`` and ``F = 0.9^(1/−d) − 1``. Cards without a
stability or a last review have ``R = 0``. :func:`forecast` and :func:`crossing_day`
use the continuous (unfloored) curve instead, so plots are smooth and crossings exact.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from fsrs import Card, Rating, Scheduler, State

from brainview.core.timestamps import ensure_utc as ensure_utc
from brainview.core.timestamps import format_ts as format_ts
from brainview.core.timestamps import parse_ts as parse_ts
from brainview.core.timestamps import to_epoch_s as to_epoch_s

if TYPE_CHECKING:
    import numpy as np

GRADE_TO_RATING: dict[int, Rating] = {
    1: Rating.Again,  # miss
    2: Rating.Hard,  # weak
    3: Rating.Good,  # fire
    4: Rating.Easy,  # strong
}
"""Spikuit ``spike.grade`` → py-fsrs rating."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)
_US_PER_DAY = 86_400 * 1_000_000


def card_from_json(card_json: str | dict[str, Any]) -> Card:
    """Build a :class:`fsrs.Card` from ``Card.to_json()`` output (or its dict).

    Tolerates older layouts: state 0 (New) becomes Learning with null stability and
    difficulty, missing keys take py-fsrs defaults (``card_id`` 0, ``due`` = last review
    or now), a falsy stability/difficulty is null (as in ``Card.from_dict``), and all
    timestamps are parsed with :func:`parse_ts`.
    """
    d: dict[str, Any] = json.loads(card_json) if isinstance(card_json, str) else card_json
    stability, last_review = _stability_and_last(d)
    difficulty = float(d["difficulty"]) if stability and d.get("difficulty") else None
    if d.get("state") is None:  # no state at all: infer it from whether it was ever scheduled
        state = State.Review if stability else State.Learning
    else:
        state = State(int(d["state"]) or State.Learning)
    step = d.get("step")
    if state == State.Learning and step is None:
        step = 0
    due_raw = d.get("due")
    due = parse_ts(due_raw) if due_raw else (last_review or datetime.now(UTC))
    return Card(
        card_id=int(d.get("card_id") or 0),
        state=state,
        step=None if step is None else int(step),
        stability=stability,
        difficulty=difficulty,
        due=due,
        last_review=last_review,
    )


def card_to_json(card: Card) -> str:
    """Serialise ``card`` exactly as ``Card.to_json()`` (what Spikuit stores in card_json)."""
    return card.to_json()


def card_stability_lastreview(
    card_json: str | dict[str, Any],
) -> tuple[float | None, datetime | None]:
    """Fast path for bulk reads: ``(stability, last_review)`` without building a Card.

    Same tolerance as :func:`card_from_json` (state 0 or falsy stability → ``None``).
    """
    d: dict[str, Any] = json.loads(card_json) if isinstance(card_json, str) else card_json
    return _stability_and_last(d)


def _stability_and_last(d: dict[str, Any]) -> tuple[float | None, datetime | None]:
    """Stability (None for old state 0 = New, or falsy) and parsed last review of a card dict."""
    raw, state = d.get("stability"), d.get("state")
    stability = float(raw) if raw and (state is None or int(state) != 0) else None
    last = d.get("last_review")
    return stability, (parse_ts(last) if last else None)


@lru_cache(maxsize=1)
def _default_parameters() -> tuple[float, ...]:
    return tuple(Scheduler().parameters)


def decay_and_factor(params: Sequence[float] | None = None) -> tuple[float, float]:
    """Return ``(d, F)``: decay ``d = params[20]`` (positive) and ``F = 0.9^(1/−d) − 1``.

    ``params`` defaults to the default ``fsrs.Scheduler()`` parameters. ``F`` is computed
    with the same expression as py-fsrs so results agree bit for bit.
    """
    p = _default_parameters() if params is None else params
    decay = float(p[20])
    return decay, 0.9 ** (1 / -decay) - 1


def retention_curve(
    elapsed_days: np.ndarray | float, stability: float, params: Sequence[float] | None = None
) -> np.ndarray:
    """Continuous ``R(t, S)`` for ``elapsed_days`` (negative t clamped to 0, no flooring)."""
    import numpy as np

    d, f = decay_and_factor(params)
    t = np.maximum(np.asarray(elapsed_days, dtype=np.float64), 0.0)
    return (1.0 + f * t / float(stability)) ** (-d)


def retrievability(
    stability: np.ndarray,
    last_review_epoch_s: np.ndarray,
    now: datetime,
    params: Sequence[float] | None = None,
) -> np.ndarray:
    """Vectorised py-fsrs ``Scheduler.get_card_retrievability`` for many cards at ``now``.

    ``last_review_epoch_s`` holds ``datetime.timestamp()`` values; they are rounded back to
    whole microseconds and the elapsed time is floored to whole days in integer arithmetic
    (``max(0, (now - last_review).days)``), so day boundaries match py-fsrs exactly. NaN
    (or non-positive) stability and NaN last review give 0.0, as py-fsrs returns for
    never-reviewed cards; reviews after ``now`` count as 0 elapsed days (R = 1).
    """
    import numpy as np

    d, f = decay_and_factor(params)
    s, lr = np.broadcast_arrays(
        np.asarray(stability, dtype=np.float64), np.asarray(last_review_epoch_s, dtype=np.float64)
    )
    out = np.zeros(s.shape, dtype=np.float64)
    valid = np.isfinite(s) & (s > 0) & np.isfinite(lr)
    if not valid.any():
        return out
    now_us = (ensure_utc(now) - _EPOCH) // _US
    lr_us = np.rint(lr[valid] * 1e6).astype(np.int64)
    # Floor division floors towards −inf, like timedelta.days for negative spans.
    elapsed = np.maximum((now_us - lr_us) // _US_PER_DAY, 0).astype(np.float64)
    out[valid] = (1.0 + f * elapsed / s[valid]) ** (-d)
    return out


def retrievability_one(card: Card, now: datetime) -> float:
    """Retrievability of one card at ``now`` (0.0 when never reviewed)."""
    if card.stability is None or card.last_review is None:
        return 0.0
    import numpy as np

    r = retrievability(np.array([card.stability]), np.array([to_epoch_s(card.last_review)]), now)
    return float(r[0])


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """The card after one replayed spike."""

    fired_at: datetime
    grade: int
    stability: float
    difficulty: float
    state: State
    due: datetime


def replay_spikes(
    spikes: Iterable[tuple[int, datetime | str]], *, fuzz: bool = False, card_id: int = 0
) -> tuple[Card | None, list[ReplayStep]]:
    """Reconstruct a card by replaying ``(grade, fired_at)`` spikes through the scheduler.

    Spikes are replayed in chronological order (a stable sort, so equal timestamps keep
    their given order) through ``Scheduler(enable_fuzzing=fuzz)``, starting from a fresh
    card. ``fired_at`` may be a datetime or a timestamp string. Returns ``(None, [])``
    when there are no spikes; raises ``ValueError`` for a grade outside 1..4.
    """
    events = [(int(g), parse_ts(t) if isinstance(t, str) else ensure_utc(t)) for g, t in spikes]
    if not events:
        return None, []
    events.sort(key=lambda e: e[1])
    scheduler = Scheduler(enable_fuzzing=fuzz)
    card = Card(card_id=card_id, due=events[0][1])
    steps: list[ReplayStep] = []
    for grade, fired_at in events:
        if grade not in GRADE_TO_RATING:
            raise ValueError(f"spike grade must be 1..4, got {grade}")
        card, _log = scheduler.review_card(card, GRADE_TO_RATING[grade], fired_at)
        assert card.stability is not None and card.difficulty is not None
        steps.append(
            ReplayStep(fired_at, grade, card.stability, card.difficulty, card.state, card.due)
        )
    return card, steps


def _elapsed_days(last_review: datetime, now: datetime) -> float:
    """Continuous days from ``last_review`` to ``now`` (may be negative)."""
    return (ensure_utc(now) - ensure_utc(last_review)) / timedelta(days=1)


def forecast(
    stability: float | None, last_review: datetime, now: datetime, days: int = 90
) -> np.ndarray:
    """R at day offsets ``0..days`` from ``now`` (``days + 1`` values).

    Uses the **continuous** curve (elapsed time not floored to whole days, unlike
    py-fsrs's displayed R), clamped at 0 elapsed days; all zeros if stability is None.
    """
    import numpy as np

    offsets = np.arange(days + 1, dtype=np.float64)
    if stability is None:
        return np.zeros_like(offsets)
    return retention_curve(_elapsed_days(last_review, now) + offsets, stability)


def crossing_day(
    stability: float | None, last_review: datetime, now: datetime, threshold: float
) -> float | None:
    """Days from ``now`` until the continuous R falls to ``threshold``.

    Solves ``R(t, S) = threshold`` in closed form, ``t = S/F·(threshold^(−1/d) − 1)``
    measured from ``last_review``. Returns 0.0 if R is already at or below the threshold
    and None if the card has no stability. ``threshold`` must be positive.
    """
    if not threshold > 0:
        raise ValueError(f"threshold must be > 0, got {threshold}")
    if stability is None:
        return None
    d, f = decay_and_factor()
    t_cross = stability / f * (threshold ** (-1 / d) - 1)
    return max(0.0, t_cross - _elapsed_days(last_review, now))
