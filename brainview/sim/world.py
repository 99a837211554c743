"""The simulated world: a user brain with latent ground truth, and the user's activity.

**Families.**  Every candidate change falls in exactly one family, decided by facts
about the user brain at that moment (never by anything the curator writes):

==================  ======================  =======================================
kind                mistake family          the same kind done right
==================  ======================  =======================================
merge_neurons       merge_example: fold an  merge_duplicate: two copies of one note
                    example into its concept
add_synapse         link_cross_domain:      link_in_domain: two notes of one domain
                    link unrelated domains
retire_neuron       retire_in_review: the   retire_dormant: nobody reviewed it for
                    user is still studying  weeks
rename_domain       rename_new_domain: the  rename_settled_domain: a domain in use
                    user created it lately  for weeks
==================  ======================  =======================================

**The user** keeps studying: each week a note being studied stays in the rotation with
probability 0.75 and a resting one is picked up with probability 0.04 (a review at a
random time of the week); a note is *in review* when reviewed within the last 14 days.
New domains appear on a schedule (:data:`FRESH`, written into the brain up front by
:mod:`brainview.demo.sim_brains`) and count as *new* for 21 days.  Accepted changes are
remembered (a merged or retired note is gone, a link exists, a domain was renamed), so
nobody proposes them again; the brain itself is left as it is (record-only).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from brainview.demo.sim_brains import FreshDomain, SimBrains, UserNeuron

REVIEW_DAYS = 14
NEW_DOMAIN_DAYS = 21
DORMANT_DAYS = 28
KEEP_STUDYING, PICK_UP = 0.75, 0.04

KINDS: dict[str, tuple[str, str]] = {
    "merge_neurons": ("merge_example", "merge_duplicate"),
    "add_synapse": ("link_cross_domain", "link_in_domain"),
    "retire_neuron": ("retire_in_review", "retire_dormant"),
    "rename_domain": ("rename_new_domain", "rename_settled_domain"),
}
"""kind → (mistake family, good family)."""
MISTAKES = frozenset(m for m, _g in KINDS.values())
FAMILY_KIND = {f: k for k, pair in KINDS.items() for f in pair}

FRESH: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("knitting", ("cable stitch", "purl", "gauge", "yarn weight", "blocking", "cast on")),
    ("astronomy", ("parallax", "red shift", "nebula", "magnitude", "ecliptic", "quasar")),
    ("chess", ("fork", "pin", "zugzwang", "castling", "en passant", "fianchetto")),
    ("latin", ("ablative", "declension", "supine", "gerundive", "vocative", "deponent")),
    ("statistics", ("p-value", "variance", "bootstrap", "prior", "likelihood", "median")),
    ("poetry", ("iamb", "caesura", "enjambment", "sonnet", "volta", "assonance")),
    ("gardening", ("compost", "mulch", "pruning", "germination", "loam", "cuttings")),
    ("economics", ("elasticity", "inflation", "tariff", "monopoly", "externality", "utility")),
    ("photography", ("aperture", "shutter", "exposure", "bokeh", "white balance", "iso")),
    ("sailing", ("tack", "jibe", "halyard", "keel", "leeward", "bowline")),
    ("pottery", ("glaze", "kiln", "slip", "wedging", "bisque", "throwing")),
    ("birding", ("plumage", "warbler", "migration", "raptor", "song post", "fledgling")),
)
NEW_NAMES: dict[str, tuple[str, ...]] = {
    "math": ("mathematics", "maths"),
    "spanish": ("spanish-language", "castellano"),
    "cooking": ("culinary", "kitchen"),
    "music": ("music-theory", "harmony"),
    "systems": ("computer-systems", "operating-systems"),
}


def fresh_domains(start: datetime, weeks: int) -> list[FreshDomain]:
    """One new domain every five days from ten days before ``start`` to the run's end."""
    out = []
    for k, (name, words) in enumerate(FRESH):
        at = start + timedelta(days=5 * k - 10, hours=14)
        if at < start + timedelta(weeks=weeks):
            out.append(FreshDomain(name, at, words))
    return out


@dataclass
class World:
    """Ground truth and the user's activity, for one run."""

    brains: SimBrains
    seed: int
    start: datetime
    neurons: dict[str, UserNeuron] = field(init=False)
    reviews: dict[str, list[datetime]] = field(init=False)
    studying: set[str] = field(init=False)
    gone: set[str] = field(default_factory=set)
    linked: set[tuple[str, str]] = field(default_factory=set)
    renamed: set[str] = field(default_factory=set)
    lessons: dict[str, str] = field(default_factory=dict)
    """Rejection lesson id → the family of the proposal it was written about."""
    poisoned: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.neurons = {n.id: n for n in self.brains.neurons}
        self.reviews = {
            i: [n.last_review] if n.last_review else [] for i, n in self.neurons.items()
        }
        self.studying = {i for i in self.neurons if self._recent(i, self.start)}

    # -- the user's activity --------------------------------------------------------------

    def study_week(self, monday: datetime) -> None:
        """Draw this week's reviews (and who keeps studying) before the week is run."""
        rng = random.Random(f"{self.seed}:study:{monday.isoformat()}")
        for nid in sorted(self.neurons):
            n = self.neurons[nid]
            if n.created_at > monday + timedelta(days=7):
                continue
            fresh_note = n.created_at > monday - timedelta(days=NEW_DOMAIN_DAYS)
            chance = KEEP_STUDYING if nid in self.studying else PICK_UP
            keep = fresh_note or rng.random() < chance
            if keep:
                self.studying.add(nid)
                at = max(n.created_at, monday) + timedelta(seconds=rng.uniform(0, 7 * 86_400))
                self.reviews[nid].append(at)
            else:
                self.studying.discard(nid)

    def _recent(self, nid: str, now: datetime) -> bool:
        return any(now - timedelta(days=REVIEW_DAYS) < r <= now for r in self.reviews[nid])

    def in_review(self, nid: str, now: datetime) -> bool:
        """Reviewed within the last :data:`REVIEW_DAYS` days (ground truth)."""
        return self._recent(nid, now)

    def last_review(self, nid: str, now: datetime) -> datetime | None:
        past = [r for r in self.reviews[nid] if r <= now]
        return max(past) if past else None

    def domain_age(self, domain: str, now: datetime) -> float:
        return (now - self.brains.domain_born[domain]).total_seconds() / 86_400

    def visible(self, now: datetime) -> list[UserNeuron]:
        """Notes that exist at ``now`` and were not merged or retired by an accept."""
        return [
            self.neurons[i]
            for i in sorted(self.neurons)
            if self.neurons[i].created_at <= now and i not in self.gone
        ]

    # -- ground truth ---------------------------------------------------------------------

    def family_of(self, kind: str, params: dict[str, Any], now: datetime) -> str:
        """The family a proposal falls in, from the brain's facts at ``now``."""
        if kind == "merge_neurons":
            keep, merged = self.neurons[params["keep"]], self.neurons[params["merge"][0]]
            example = merged.type == "example" and keep.type != "example"
            return "merge_example" if example else "merge_duplicate"
        if kind == "add_synapse":
            same = self.neurons[params["pre"]].domain == self.neurons[params["post"]].domain
            return "link_in_domain" if same else "link_cross_domain"
        if kind == "retire_neuron":
            busy = self.in_review(params["neuron"], now)
            return "retire_in_review" if busy else "retire_dormant"
        if kind == "rename_domain":
            young = self.domain_age(params["old"], now) < NEW_DOMAIN_DAYS
            return "rename_new_domain" if young else "rename_settled_domain"
        raise ValueError(f"no family for kind {kind}")

    def accepted(self, kind: str, params: dict[str, Any]) -> None:
        """Remember an accepted change (so it is not proposed again)."""
        if kind == "merge_neurons":
            self.gone.update(params["merge"])
        elif kind == "retire_neuron":
            self.gone.add(params["neuron"])
        elif kind == "add_synapse":
            self.linked.add((params["pre"], params["post"]))
        elif kind == "rename_domain":
            self.renamed.add(params["old"])

    def link_free(self, a: str, b: str) -> bool:
        pairs = {(a, b), (b, a)}
        return not pairs & self.linked and not pairs & self.brains.links
