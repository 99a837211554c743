"""Spike-timing-dependent plasticity with Spikuit 0.7's defaults (contracts §4).

On a fire with grade ≥ weak, for each synapse touching the fired neuron F whose
other end last fired within ``tau`` days: the incoming edge (neighbour → F) gains
``a_plus·exp(−Δt/tau)``, the outgoing edge (F → neighbour) loses
``a_minus·exp(−Δt/tau)``; ``co_fires += 1``; ``last_co_fire = fired_at``.
A miss changes no weight.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

TAU_DAYS = 7.0
A_PLUS = 0.03
A_MINUS = 0.036
W_MIN, W_MAX = 0.05, 1.0


@dataclass(frozen=True)
class StdpParams:
    """Tunable STDP constants (Spikuit 0.7 defaults)."""

    tau_days: float = TAU_DAYS
    a_plus: float = A_PLUS
    a_minus: float = A_MINUS
    w_min: float = W_MIN
    w_max: float = W_MAX


def clamp(weight: float, p: StdpParams = StdpParams()) -> float:
    """Clamp a weight into the allowed range."""
    return min(p.w_max, max(p.w_min, weight))


def delta(direction: str, dt_days: float, p: StdpParams = StdpParams()) -> float | None:
    """Weight change for an edge; ``direction`` is ``"in"`` (→F) or ``"out"`` (F→).

    ``None`` when the neighbour did not fire within tau (no co-fire).
    """
    if dt_days < 0 or dt_days > p.tau_days:
        return None
    decay = math.exp(-dt_days / p.tau_days)
    return p.a_plus * decay if direction == "in" else -p.a_minus * decay


def applies(grade: int) -> bool:
    """STDP runs on grades ≥ weak; a miss changes no weight."""
    return grade >= 2
