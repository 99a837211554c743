"""Turning the agent brain's state into a consolidation plan (triage, SWS, SHY, REM).

Items are *independent* by construction, so deciding them in any order — or applying
them all at once — gives the same agent brain: SHY leaves out synapses touching a
reflection SWS prunes, REM leaves pruned, challenged and pending reflections out of its
members, and a policy that a new draft supersedes is retired by that draft (never by a
separate ``retire_policy`` item).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter, defaultdict
from datetime import datetime

from brainview import __version__
from brainview.core import fsrs_math
from brainview.core.clustering import Partition
from brainview.core.consolidation import (
    Settings,
    contested,
    jaccard,
    prune_candidate,
    shy_picks,
    tier_of,
)
from brainview.core.kinds import check_params
from brainview.core.policy_text import Member, draft
from brainview.services.consolidate.gather import AgentState
from brainview.services.consolidate.model import ConsolidationPlan, PlanItem

PLANNER = f"brainview-consolidate/{__version__}"
MAX_SYNAPSES_PER_ITEM = 200
POLICY_WEIGHT = 0.5
UNUSABLE = ("challenged", "invalidated")


def _item(
    plan_ref: dict[str, str], phase: str, kind: str, params: dict, why: str, consulted: list[str]
) -> PlanItem:
    params = {**params, "plan": plan_ref}
    _refs, summary = check_params(kind, params)
    return PlanItem(phase, kind, params, why, [(r, "annotate") for r in consulted], summary)


def _days(since: str | None, now: datetime) -> str:
    if since is None:
        return "never fired"
    days = (fsrs_math.ensure_utc(now) - fsrs_math.parse_ts(since)).days
    return f"last fired {days} days ago"


def _sws(
    st: AgentState, tiers: dict[str, str], now: datetime, s: Settings, ref: dict
) -> tuple[list[PlanItem], Counter]:
    items, skipped = [], Counter()
    for rid in st.ids:
        fading = st.fading.get(rid)
        r = st.r_now[rid]
        if not prune_candidate(
            tiers[rid], r, s, rescued=fading == "rescue", let_go=fading == "let_go"
        ):
            if fading == "rescue" and r is not None and r < s.threshold:
                skipped["rescued"] += 1
            continue
        if st.lifecycle.get(rid) in UNUSABLE:
            skipped["challenged"] += 1
            continue
        if rid in st.pending["prune_reflection"]:
            skipped["already pending"] += 1
            continue
        if rid in st.kept:
            skipped["kept (a maintainer rejected its prune)"] += 1
            continue
        assert r is not None
        why = (
            f"R {r:.2f} is below the pruning threshold {s.threshold:.2f}; "
            f"{_days(st.fires[rid].last_fire, now)}"
            + ("; a maintainer let it go" if fading == "let_go" else "; nobody rescued it")
            + ". Pruning soft-retires it (and its links): history stays, undo restores it."
        )
        basis = {"last_review": st.last_review[rid], "stability": st.stability[rid]}
        params = {"reflection": rid, "retrievability": round(r, 4), "basis": basis}
        items.append(_item(ref, "sws", "prune_reflection", params, why, [rid]))
    return items, skipped


def _shy(
    st: AgentState,
    tiers: dict[str, str],
    pruned: set[str],
    community: dict[str, int],
    s: Settings,
    ref: dict,
) -> list[PlanItem]:
    stale = {rid for rid, t in tiers.items() if t == "stale"}
    pending = st.pending["decay_synapses"]
    picks = [
        (syn, to)
        for syn, to in shy_picks(st.synapses, stale, pruned, s)
        if f"{syn.pre}|{syn.post}|{syn.type}" not in pending
    ]
    groups: dict[int, list] = defaultdict(list)
    for syn, to in picks:
        groups[min(community.get(syn.pre, -1), community.get(syn.post, -1))].append((syn, to))
    items = []
    for c in sorted(groups):
        chunk_all = groups[c]
        for start in range(0, len(chunk_all), MAX_SYNAPSES_PER_ITEM):
            chunk = chunk_all[start : start + MAX_SYNAPSES_PER_ITEM]
            retired = sum(1 for _syn, to in chunk if to is None)
            where = f"community #{c}" if c >= 0 else "reflections outside any community"
            why = (
                f"{len(chunk)} weak link(s) (weight < {s.weak_below:.2f}) in {where} join "
                f"reflections that have not fired for {s.stale_days}+ days. SHY scales them "
                f"× {s.decay_factor:g} (Spikuit's default)"
                + (
                    f"; {retired} fall below the {s.weight_floor:g} floor and are retired."
                    if retired
                    else "."
                )
            )
            syns = [
                {"pre": x.pre, "post": x.post, "type": x.type, "weight": x.weight, "to": to}
                for x, to in chunk
            ]
            params = {"synapses": syns, "factor": s.decay_factor, "floor": s.weight_floor}
            items.append(_item(ref, "shy", "decay_synapses", params, why, []))
    return items


def policy_id(members: list[str]) -> str:
    """A policy id derived from its members (the same draft gets the same id)."""
    return "pol-" + hashlib.sha256("|".join(sorted(members)).encode()).hexdigest()[:12]


def rem_groups(
    st: AgentState, part: Partition, excluded: set[str], s: Settings
) -> tuple[list[tuple[int, list[str], str | None]], Counter]:
    """Communities needing a policy: ``(community, members, previous policy)``."""
    skipped: Counter = Counter()
    by_c: dict[int, list[str]] = defaultdict(list)
    live = set(st.ids)
    for rid, c in zip(part.ids, part.membership.tolist(), strict=True):
        if rid in live:
            by_c[int(c)].append(rid)
    attached: dict[int, list[str]] = defaultdict(list)
    for pid, c in sorted(part.policies.items()):
        if pid in st.policies:
            attached[int(c)].append(pid)
    out = []
    for c in sorted(by_c):
        everyone = set(by_c[c])
        members = sorted(m for m in everyone if m not in excluded)
        if len(members) < s.min_community:
            continue
        overlaps = {p: jaccard(set(st.policies[p].live_targets), everyone) for p in st.policies}
        if any(v >= s.policy_overlap for v in overlaps.values()):
            skipped["community has a current policy"] += 1
            continue
        if len(set(members) & st.pending["summarize_community"]) * 2 > len(members):
            skipped["already pending"] += 1
            continue
        previous = sorted(attached[c], key=lambda p: (-overlaps[p], p))
        out.append((c, members, previous[0] if previous else None))
    return out, skipped


def build(
    st: AgentState, part: Partition | None, texts: dict[str, str], now: datetime, s: Settings
) -> ConsolidationPlan:
    """The plan (``texts``: contents of the REM members and previous policies)."""
    planned_at = fsrs_math.format_ts(now)
    digest = hashlib.sha256(f"{st.fingerprint}|{planned_at}|{s.to_json()}".encode())
    plan_id = f"cons-{digest.hexdigest()[:12]}"
    ref = {"id": plan_id, "fingerprint": st.fingerprint}
    tiers = {rid: tier_of(st.fires[rid], now, s) for rid in st.ids}
    triage = Counter(tiers.values())
    triage["contested"] = sum(1 for rid in st.ids if contested(st.fires[rid]))
    sws, skipped = _sws(st, tiers, now, s, ref)
    pruned = {it.params["reflection"] for it in sws} | st.pending["prune_reflection"]
    community = dict(zip(part.ids, part.membership.tolist(), strict=True)) if part else {}
    shy = _shy(st, tiers, pruned, community, s, ref)
    rem: list[PlanItem] = []
    superseded: set[str] = set()
    if part is not None:
        excluded = (
            pruned
            | st.pending["prune_reflection"]
            | {rid for rid, state in st.lifecycle.items() if state in UNUSABLE}
        )
        groups, more = rem_groups(st, part, excluded, s)
        skipped.update(more)
        for c, members, previous in groups:
            rem.append(_summarize_item(st, c, members, previous, texts, ref))
            if previous:
                superseded.add(previous)
    rem += _orphans(st, superseded, ref)
    return ConsolidationPlan(
        id=plan_id,
        fingerprint=st.fingerprint,
        planned_at=planned_at,
        planner=PLANNER,
        settings=s,
        triage={t: triage.get(t, 0) for t in (*("hot", "warm", "stale", "new"), "contested")},
        items=sws + shy + rem,
        skipped=dict(skipped),
    )


def _summarize_item(
    st: AgentState,
    c: int,
    members: list[str],
    previous: str | None,
    texts: dict[str, str],
    ref: dict,
) -> PlanItem:
    people = [Member(m, texts.get(m, ""), st.stability[m], st.skill[m]) for m in members]
    body = draft(people)
    r = [st.r_now[m] for m in members if st.r_now[m] is not None]
    mean_r = f"mean R {sum(r) / len(r):.2f}" if r else "no reviews yet"
    why = f"Community #{c} ({len(members)} reflections, {mean_r}) has no current policy"
    if previous:
        old = st.policies[previous]
        keep = len(set(old.live_targets) & set(members))
        why += f"; its previous policy {previous} covers only {keep} of them and is replaced"
    why += ". The draft is extractive (shared terms and the most stable lessons): edit it."
    skills = Counter(st.skill[m] for m in members)
    params = {
        "policy": policy_id(members),
        "text": body,
        "members": members,
        "weight": POLICY_WEIGHT,
        "community": c,
        "previous_policy": previous,
        "domain": skills.most_common(1)[0][0] or "policy",
    }
    return _item(ref, "rem", "summarize_community", params, why, members)


def _orphans(st: AgentState, superseded: set[str], ref: dict) -> list[PlanItem]:
    items = []
    for pid, pol in sorted(st.policies.items()):
        if pid in superseded or pid in st.pending["retire_policy"]:
            continue
        total, live = len(pol.targets), len(pol.live_targets)
        if total == 0 or live >= max(2, math.ceil(total / 2)):
            continue
        why = (
            f"Only {live} of the {total} reflections it summarises are still live: the "
            "lessons it stood for are gone. Retiring soft-retires it and its links."
        )
        items.append(_item(ref, "rem", "retire_policy", {"policy": pid}, why, [pid]))
    return items
