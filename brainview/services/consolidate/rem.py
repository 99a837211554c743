"""REM: which communities need a policy, and which policies are still current.

A policy is *current* for a community when the reflections it still summarises (live
``summarizes`` links to live reflections) overlap the community's live members by at
least ``policy_overlap`` (Jaccard).  Overlaps are counted from each policy's targets, so
the cost grows with the number of ``summarizes`` links, not communities × policies.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from brainview.core.clustering import Partition
from brainview.core.consolidation import Settings
from brainview.services.consolidate.gather import AgentState


def _members(st: AgentState, part: Partition) -> dict[int, list[str]]:
    live = set(st.ids)
    by_c: dict[int, list[str]] = defaultdict(list)
    for rid, c in zip(part.ids, part.membership.tolist(), strict=True):
        if rid in live:
            by_c[int(c)].append(rid)
    return by_c


def overlaps(st: AgentState, part: Partition) -> dict[str, dict[int, float]]:
    """Policy → {community: Jaccard of its live targets and the community's members}."""
    by_c = _members(st, part)
    where = {rid: c for c, members in by_c.items() for rid in members}
    out: dict[str, dict[int, float]] = {}
    for pid, pol in st.policies.items():
        targets = set(pol.live_targets)
        shared = Counter(where[t] for t in targets if t in where)
        out[pid] = {c: k / (len(targets) + len(by_c[c]) - k) for c, k in shared.items() if k}
    return out


def current_policies(st: AgentState, part: Partition, s: Settings) -> set[str]:
    """Policies current for some community (never proposed for retirement)."""
    return {
        p for p, by in overlaps(st, part).items() if any(v >= s.policy_overlap for v in by.values())
    }  # noqa: E501


def rem_groups(
    st: AgentState, part: Partition, excluded: set[str], s: Settings
) -> tuple[list[tuple[int, list[str], str | None]], Counter[str]]:
    """Communities needing a policy: ``(community, members, previous policy)``."""
    skipped: Counter[str] = Counter()
    by_c = _members(st, part)
    over = overlaps(st, part)
    current = {c for by in over.values() for c, v in by.items() if v >= s.policy_overlap}
    holding = {p for p, by in over.items() if any(v >= s.policy_overlap for v in by.values())}
    attached: dict[int, list[str]] = defaultdict(list)
    for pid, c in sorted(part.policies.items()):
        if pid in st.policies and pid not in holding:  # never retire a current policy
            attached[int(c)].append(pid)
    out = []
    for c in sorted(by_c):
        members = sorted(m for m in by_c[c] if m not in excluded)
        if len(members) < s.min_community:
            continue
        if c in current:
            skipped["communities with a current policy"] += 1
            continue
        if len(set(members) & st.pending["summarize_community"]) * 2 > len(members):
            skipped["already pending"] += 1
            continue
        previous = sorted(attached[c], key=lambda p: (-over[p].get(c, 0.0), p))
        out.append((c, members, previous[0] if previous else None))
    return out, skipped
