"""A consolidation plan and its items, as the planner returns them."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from brainview.core.consolidation import Settings

PHASES = ("sws", "shy", "rem")
PHASE_NAMES = {
    "sws": "SWS: prune faded reflections",
    "shy": "SHY: decay weak links between stale reflections",
    "rem": "REM: one policy per community",
}


@dataclass(frozen=True)
class PlanItem:
    """One planned change; queued, it becomes one proposal."""

    phase: str
    kind: str
    params: dict[str, Any]
    rationale: str
    consulted: list[tuple[str, str]]
    """``(reflection id, stance)``: the reflections the item is about (``annotate``)."""
    summary: str

    def proposal(self, proposal_id: str, created_at: str, runtime: str) -> dict[str, Any]:
        """The item as a proposal in the curator format (``docs/proposal-format.md``)."""
        return {
            "id": proposal_id,
            "skill": "consolidate",
            "kind": self.kind,
            "params": self.params,
            "rationale": self.rationale,
            "consulted": [{"reflection": r, "stance": s} for r, s in self.consulted],
            "created_at": created_at,
            "runtime": runtime,
        }


@dataclass
class ConsolidationPlan:
    """What one consolidation would change, phase by phase."""

    id: str
    fingerprint: str
    planned_at: str
    planner: str
    settings: Settings
    triage: dict[str, int]
    items: list[PlanItem] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    """Why candidates were left out (``rescued``, ``already pending`` …) and how many."""

    def counts(self) -> dict[str, int]:
        """Items per kind, every agent kind present (zero when none)."""
        seen = Counter(item.kind for item in self.items)
        kinds = ("prune_reflection", "decay_synapses", "summarize_community", "retire_policy")
        return {k: seen.get(k, 0) for k in kinds}

    def proposal_ids(self) -> list[str]:
        """The ids the items get when queued (``<plan id>-<seq>``)."""
        return [f"{self.id}-{seq:03d}" for seq in range(len(self.items))]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (``reflect consolidate --json``)."""
        return {
            "id": self.id,
            "fingerprint": self.fingerprint,
            "planned_at": self.planned_at,
            "planner": self.planner,
            "settings": self.settings.to_json(),
            "triage": self.triage,
            "counts": self.counts(),
            "skipped": self.skipped,
            "items": [
                {
                    "proposal_id": pid,
                    "phase": item.phase,
                    "kind": item.kind,
                    "summary": item.summary,
                    "rationale": item.rationale,
                    "params": item.params,
                    "consulted": [r for r, _s in item.consulted],
                }
                for pid, item in zip(self.proposal_ids(), self.items, strict=True)
            ],
        }
