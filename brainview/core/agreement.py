"""Agreement between people who decided the same item.  Pure.

* :func:`cohen_kappa` — two raters, each item rated by both: ``κ = (pₒ − pₑ) / (1 − pₑ)``
  with ``pₑ`` from each rater's own marginals (Cohen 1960);
* :func:`krippendorff_alpha` — any number of raters, nominal categories, items rated by
  two or more (missing ratings allowed): ``α = 1 − Dₒ / Dₑ`` from the coincidence
  matrix (Krippendorff 2011, "Computing Krippendorff's alpha-reliability");
* :func:`summarize` — per kind and per person: the method (κ when exactly two people
  rated, α when more), the value, the share of items agreed on and how many.

A value is ``None`` when it is undefined (no item, or no variation in the ratings:
``pₑ = 1`` / ``Dₑ = 0``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Rated:
    """One item two people decided: ``(first person, verdict)``, ``(second, verdict)``."""

    kind: str
    first: tuple[str, str]
    second: tuple[str, str]


def cohen_kappa(pairs: Sequence[tuple[str, str]]) -> float | None:
    """Cohen's κ of two raters over ``pairs`` ``(rater A's label, rater B's label)``."""
    n = len(pairs)
    if n == 0:
        return None
    observed = sum(1 for a, b in pairs if a == b) / n
    left = Counter(a for a, _ in pairs)
    right = Counter(b for _, b in pairs)
    expected = sum(left[c] * right[c] for c in left) / (n * n)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def krippendorff_alpha(units: Iterable[Sequence[str]]) -> float | None:
    """Krippendorff's α (nominal) over ``units``, each the labels its raters gave.

    Units with fewer than two labels are not pairable and are left out."""
    coincidence: dict[tuple[str, str], float] = defaultdict(float)
    for labels in units:
        m = len(labels)
        if m < 2:
            continue
        for i, a in enumerate(labels):
            for j, b in enumerate(labels):
                if i != j:
                    coincidence[(a, b)] += 1.0 / (m - 1)
    totals: dict[str, float] = defaultdict(float)
    for (a, _b), value in coincidence.items():
        totals[a] += value
    n = sum(totals.values())
    if n <= 1:
        return None
    disagree_observed = sum(v for (a, b), v in coincidence.items() if a != b)
    disagree_expected = sum(totals[a] * totals[b] for a in totals for b in totals if a != b) / (
        n - 1
    )
    if disagree_expected == 0:
        return None
    return 1.0 - disagree_observed / disagree_expected


def figure(items: Sequence[Rated]) -> dict[str, object]:
    """One group's figure: ``{"items", "agreed", "raters", "method", "value"}``."""
    raters = sorted({p for it in items for p in (it.first[0], it.second[0])})
    agreed = sum(1 for it in items if it.first[1] == it.second[1])
    if len(raters) == 2:
        # orient every pair the same way: rater A is the alphabetically first name
        pairs = [
            (it.first[1], it.second[1]) if it.first[0] == raters[0] else (it.second[1], it.first[1])
            for it in items
        ]
        method, value = "cohen_kappa", cohen_kappa(pairs)
    else:
        method = "krippendorff_alpha"
        value = krippendorff_alpha([(it.first[1], it.second[1]) for it in items])
    return {
        "items": len(items),
        "agreed": agreed,
        "share_agreed": round(agreed / len(items), 4) if items else None,
        "raters": raters,
        "method": method,
        "value": None if value is None else round(value, 4),
    }


def summarize(items: Sequence[Rated]) -> dict[str, object]:
    """Overall, per kind and per person (every item the person rated)."""
    by_kind: Mapping[str, list[Rated]] = _group(items, lambda it: (it.kind,))
    by_person: Mapping[str, list[Rated]] = _group(items, lambda it: (it.first[0], it.second[0]))
    return {
        "overall": figure(items),
        "by_kind": {k: figure(v) for k, v in sorted(by_kind.items())},
        "by_person": {p: figure(v) for p, v in sorted(by_person.items())},
    }


def _group(items: Sequence[Rated], keys: object) -> dict[str, list[Rated]]:
    out: dict[str, list[Rated]] = defaultdict(list)
    for it in items:
        for key in dict.fromkeys(keys(it)):  # type: ignore[operator]
            out[key].append(it)
    return dict(out)
