"""The curator's candidate changes: drawn from a family, described in its own words.

The curator's drafting has a fixed error rate per kind (:mod:`brainview.sim.arms`): the
family of each draft is drawn first, then a candidate of that family from the brain as
it is now.  Its rationale describes what it sees (the situation), never the verdict.
When lessons warn against a merge, the curator's one rewrite is to link the two notes
with ``extends`` instead; the other kinds have no rewrite (the draft is dropped).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from brainview.demo.sim_brains import UserNeuron
from brainview.sim.texts import RATIONALES, REWRITE_MERGE
from brainview.sim.world import DORMANT_DAYS, FAMILY_KIND, NEW_DOMAIN_DAYS, NEW_NAMES, World

TRIES = 40


@dataclass(frozen=True)
class Draft:
    """A candidate proposal and the family it belongs to (ground truth, hidden)."""

    index: int
    family: str
    kind: str
    params: dict[str, Any]
    rationale: str
    rewritten_from: str | None = None

    def proposal(self) -> dict[str, Any]:
        """As a draft for recall (kind, params, rationale)."""
        return {"kind": self.kind, "params": self.params, "rationale": self.rationale}


def _ref(nid: str) -> str:
    return f"[user:{nid}]"


def _head(n: UserNeuron) -> str:
    return n.title.split(" — ", 1)[0].lower()


def draft(world: World, family: str, rng: random.Random, now: datetime, index: int) -> Draft | None:
    """One candidate of ``family`` at ``now`` (``None`` when the brain offers none)."""
    kind = FAMILY_KIND[family]
    found = _CANDIDATES[kind](world, family, rng, now)
    if found is None:
        return None
    params, fill = found
    text = rng.choice(RATIONALES[family]).format(**fill)
    return Draft(index, family, kind, params, text)


def _merge(world: World, family: str, rng: random.Random, now: datetime) -> Any:
    groups: dict[tuple[str, str], list[UserNeuron]] = {}
    for n in world.visible(now):
        groups.setdefault((n.domain, _head(n)), []).append(n)
    pairs = []
    for members in groups.values():
        for k in members:
            for m in members:
                if k.id == m.id or k.type == "example":
                    continue
                if (m.type == "example") == (family == "merge_example"):
                    pairs.append((k.id, m.id))
    if not pairs:
        return None
    keep, merged = rng.choice(sorted(pairs))
    return {"keep": keep, "merge": [merged]}, {"a": _ref(keep), "b": _ref(merged)}


def _link(world: World, family: str, rng: random.Random, now: datetime) -> Any:
    notes = world.visible(now)
    for _ in range(TRIES):
        a, b = rng.sample(notes, 2)
        same = a.domain == b.domain
        if same != (family == "link_in_domain") or not world.link_free(a.id, b.id):
            continue
        typ = rng.choice(("extends", "requires", "relates_to")) if same else "relates_to"
        params = {"pre": a.id, "post": b.id, "type": typ, "weight": 0.5}
        fill = {"a": _ref(a.id), "b": _ref(b.id), "da": a.domain, "db": b.domain, "d": a.domain}
        return params, fill
    return None


def _retire(world: World, family: str, rng: random.Random, now: datetime) -> Any:
    busy = family == "retire_in_review"
    quiet = now - timedelta(days=DORMANT_DAYS)
    pool = []
    for n in world.visible(now):
        last, reviewed = world.last_review(n.id, now), world.in_review(n.id, now)
        dormant = not reviewed and (last is None or last < quiet)
        if (busy and reviewed) or (not busy and dormant):
            pool.append((n.id, last))
    if not pool:
        return None
    nid, last = rng.choice(pool)
    days = (now - last).days if last else 120
    return {"neuron": nid}, {"a": _ref(nid), "days": days}


def _rename(world: World, family: str, rng: random.Random, now: datetime) -> Any:
    young = family == "rename_new_domain"
    live = {n.domain for n in world.visible(now)}
    pool = [
        d
        for d in sorted(live)
        if d not in world.renamed and (world.domain_age(d, now) < NEW_DOMAIN_DAYS) == young
    ]
    if not pool:
        return None
    old = rng.choice(pool)
    new = rng.choice(NEW_NAMES.get(old, (f"{old}-notes", f"hobby-{old}", f"{old}-basics")))
    days = int(world.domain_age(old, now))
    return {"old": old, "new": new}, {"old": old, "new": new, "days": days}


_CANDIDATES = {
    "merge_neurons": _merge,
    "add_synapse": _link,
    "retire_neuron": _retire,
    "rename_domain": _rename,
}


def rewrite(world: World, d: Draft, now: datetime) -> Draft | None:
    """The curator's alternative to a draft lessons warned against (merges only)."""
    if d.kind != "merge_neurons":
        return None
    keep, merged = d.params["keep"], d.params["merge"][0]
    if not world.link_free(merged, keep):
        return None
    params = {"pre": merged, "post": keep, "type": "extends", "weight": 0.5}
    text = REWRITE_MERGE.format(a=_ref(keep), b=_ref(merged))
    family = world.family_of("add_synapse", params, now)
    return Draft(d.index, family, "add_synapse", params, text, rewritten_from=d.family)
