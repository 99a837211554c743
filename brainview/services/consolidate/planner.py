"""Turning the agent brain's state into a consolidation plan (triage, SWS, SHY, REM).

Items are *independent* by construction, so deciding them in any order — or applying
them all at once — gives the same agent brain: SHY leaves out synapses touching a
reflection SWS prunes (or a pending item names), SWS leaves out members of pending
policies and ends of pending decays, REM leaves pruned, challenged and pending
reflections out of its members, a policy that a new draft supersedes is retired by that
draft (never by a separate ``retire_policy`` item), and a policy that is current for a
community is never proposed for retirement.  An item the params checks refuse (hostile
text, say) is left out and counted, never fatal to the plan.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter, defaultdict
from collections.abc import Callable
from datetime import datetime
from typing import Any

from brainview import __version__
from brainview.core import fsrs_math
from brainview.core.clustering import Partition
from brainview.core.community_label import community_name
from brainview.core.consolidation import (
    Settings,
    SynapseRow,
    contested,
    prune_candidate,
    shy_picks,
    tier_of,
)
from brainview.core.kinds import check_params
from brainview.core.kinds_agent import MAX_POLICY_TEXT
from brainview.core.params import MAX_NEURONS_PER_PROPOSAL, ParamError
from brainview.core.policy_text import Member, draft
from brainview.core.safe_text import one_line
from brainview.services.consolidate.gather import AgentState
from brainview.services.consolidate.model import ConsolidationPlan, PlanItem
from brainview.services.consolidate.rem import current_policies, rem_groups

PLANNER = f"brainview-consolidate/{__version__}"
MAX_SYNAPSES_PER_ITEM = 200
POLICY_WEIGHT = 0.5
UNUSABLE = ("challenged", "invalidated")
Texts = Callable[[list[str]], dict[str, str]]
_Decay = tuple[SynapseRow, float | None]
"""A weak synapse and its decayed weight (``None`` = retire)."""


class _Plan:
    """Items being planned, and what was left out and why."""

    def __init__(self, ref: dict[str, str]) -> None:
        self.ref = ref
        self.items: list[PlanItem] = []
        self.skipped: Counter[str] = Counter()

    def add(
        self, phase: str, kind: str, params: dict[str, Any], why: str, about: list[str]
    ) -> None:
        params = {**params, "plan": self.ref}
        try:
            _refs, summary = check_params(kind, params)
        except ParamError as err:
            self.skipped[f"unplannable {kind} ({one_line(err.field, 40)})"] += 1
            return
        about = list(dict.fromkeys(about))[:500]
        self.items.append(
            PlanItem(phase, kind, params, why, [(r, "annotate") for r in about], summary)
        )


def _days(since: str | None, now: datetime) -> str:
    if since is None:
        return "never fired"
    days = (fsrs_math.ensure_utc(now) - fsrs_math.parse_ts(since)).days
    return f"last fired {days} days ago"


def _busy(st: AgentState) -> set[str]:
    """Reflections a pending consolidation item depends on (SWS leaves them alone)."""
    ends = {e for key in st.pending["decay_synapses"] for e in key.split("|")[:2]}
    return ends | st.pending["summarize_community"]


def _sws(st: AgentState, tiers: dict[str, str], now: datetime, s: Settings, out: _Plan) -> None:
    busy = _busy(st)
    for rid in st.ids:
        fading = st.fading.get(rid)
        r = st.r_now[rid]
        if not prune_candidate(
            tiers[rid], r, s, rescued=fading == "rescue", let_go=fading == "let_go"
        ):
            if fading == "rescue" and r is not None and r < s.threshold:
                out.skipped["rescued"] += 1
            continue
        if st.lifecycle.get(rid) in UNUSABLE:
            out.skipped["challenged or invalidated"] += 1
        elif rid in st.pending["prune_reflection"]:
            out.skipped["already pending"] += 1
        elif rid in st.kept:
            out.skipped["kept (a maintainer rejected its prune)"] += 1
        elif rid in busy:
            out.skipped["part of a pending policy or decay"] += 1
        else:
            assert r is not None
            why = (
                f"R {r:.2f} is below the pruning threshold {s.threshold:.2f}; "
                f"{_days(st.fires[rid].last_fire, now)}"
                + ("; a maintainer let it go" if fading == "let_go" else "; nobody rescued it")
                + ". Pruning soft-retires it (and its links): history stays, undo restores it."
            )
            basis = {
                "last_review": st.last_review[rid],
                "stability": st.stability[rid],
                "last_spike": st.fires[rid].last_spike,
            }
            params = {"reflection": rid, "retrievability": round(r, 4), "basis": basis}
            out.add("sws", "prune_reflection", params, why, [rid])


def _shy(
    st: AgentState, tiers: dict[str, str], excluded: set[str], community: dict[str, int],
    s: Settings, out: _Plan,
) -> None:  # fmt: skip
    stale = {rid for rid, t in tiers.items() if t == "stale"}
    pending = st.pending["decay_synapses"]
    picks = [
        (syn, to)
        for syn, to in shy_picks(st.synapses, stale, excluded, s)
        if f"{syn.pre}|{syn.post}|{syn.type}" not in pending
    ]
    # Both rows of a bidirectional pair stay in one item (they may retire together).
    units: dict[tuple[int, str, str, str], list[_Decay]] = defaultdict(list)
    for syn, to in picks:
        c = min(community.get(syn.pre, -1), community.get(syn.post, -1))
        a, z = sorted((syn.pre, syn.post))
        units[(c, a, z, syn.type)].append((syn, to))
    groups: dict[int, list[list[_Decay]]] = defaultdict(list)
    for key in sorted(units):
        groups[key[0]].append(units[key])
    for c, unit_list in sorted(groups.items()):
        chunk: list[_Decay] = []
        for unit in [*unit_list, None]:
            if unit is not None and len(chunk) + len(unit) <= MAX_SYNAPSES_PER_ITEM:
                chunk += unit
                continue
            if chunk:
                _decay_item(st, c, chunk, s, out)
            chunk = list(unit or [])


def _decay_item(st: AgentState, c: int, chunk: list[_Decay], s: Settings, out: _Plan) -> None:
    retired = sum(1 for _syn, to in chunk if to is None)
    where = community_name(c) if c >= 0 else "reflections outside any community"
    why = (
        f"{len(chunk)} weak link(s) (weight < {s.weak_below:.2f}) in {where} join "
        f"reflections that have not fired for {s.stale_days}+ days. SHY scales them "
        f"× {s.decay_factor:g} (Spikuit's default)"
        + (
            f"; {retired} fall below the {s.weight_floor:g} floor and are retired."
            if retired
            else "."
        )  # noqa: E501
    )
    syns = [
        {"pre": x.pre, "post": x.post, "type": x.type, "weight": x.weight, "to": to}
        for x, to in chunk
    ]
    ends = sorted({e for x, _to in chunk for e in (x.pre, x.post)})
    basis = {"spikes": {e: st.fires[e].last_spike for e in ends}}
    params = {"synapses": syns, "factor": s.decay_factor, "floor": s.weight_floor, "basis": basis}
    out.add("shy", "decay_synapses", params, why, ends)


def policy_id(plan_id: str, members: list[str]) -> str:
    """A new policy's id: from the plan and its members (the same draft in the same plan
    gets the same id; another plan never reuses a retired policy's id)."""
    digest = hashlib.sha256(f"{plan_id}|{'|'.join(sorted(members))}".encode())
    return "pol-" + digest.hexdigest()[:12]


def _summarize(
    st: AgentState, c: int, members: list[str], previous: str | None, read: Texts,
    out: _Plan,
) -> None:  # fmt: skip
    if len(members) > MAX_NEURONS_PER_PROPOSAL:  # the most stable ones speak for it
        members = sorted(members, key=lambda m: (-(st.stability[m] or 0.0), m))
        members = sorted(members[:MAX_NEURONS_PER_PROPOSAL])
    texts = read(members) if members else {}
    people = [Member(m, texts.get(m, ""), st.stability[m], st.skill[m]) for m in members]
    body = draft(people)[:MAX_POLICY_TEXT]
    r = [x for x in (st.r_now[m] for m in members) if x is not None]
    mean_r = f"mean R {sum(r) / len(r):.2f}" if r else "no reviews yet"
    why = (
        f"{community_name(c).capitalize()} ({len(members)} reflections, {mean_r}) "
        "has no current policy"
    )
    if previous:
        keep = len(set(st.policies[previous].live_targets) & set(members))
        why += f"; its previous policy {previous} covers only {keep} of them and is replaced"
    why += ". The draft is extractive (shared terms and the most stable lessons): edit it."
    skill = Counter(st.skill[m] for m in members).most_common(1)[0][0]
    params: dict[str, Any] = {
        "policy": policy_id(out.ref["id"], members),
        "text": body,
        "members": members,
        "weight": POLICY_WEIGHT,
        "community": c,
        "previous_policy": previous,
        "domain": one_line(skill, 128) or "policy",
    }
    out.add("rem", "summarize_community", params, why, members)


def _orphans(st: AgentState, keep: set[str], out: _Plan) -> None:
    for pid, pol in sorted(st.policies.items()):
        if pid in keep or pid in st.pending["retire_policy"]:
            continue
        total, live = len(pol.targets), len(pol.live_targets)
        if total == 0 or live >= max(2, math.ceil(total / 2)):
            continue
        lessons = "reflection it summarises is" if total == 1 else "reflections it summarises are"
        why = (
            f"Only {live} of the {total} {lessons} still live: the lessons it stood for are "
            "gone. Retiring soft-retires it and its links."
        )
        out.add("rem", "retire_policy", {"policy": pid}, why, [pid])


def build(
    st: AgentState, part: Partition | None, texts: Texts, now: datetime, s: Settings
) -> ConsolidationPlan:
    """The plan; ``texts`` reads contents (only REM members and previous policies are
    read)."""
    planned_at = fsrs_math.format_ts(now)
    digest = hashlib.sha256(f"{st.fingerprint}|{planned_at}|{s.to_json()}".encode())
    plan_id = f"cons-{digest.hexdigest()[:12]}"
    out = _Plan({"id": plan_id, "fingerprint": st.fingerprint})
    tiers = {rid: tier_of(st.fires[rid], now, s) for rid in st.ids}
    triage = Counter(tiers.values())
    triage["contested"] = sum(1 for rid in st.ids if contested(st.fires[rid]))
    _sws(st, tiers, now, s, out)
    pruned = {i.params["reflection"] for i in out.items} | st.pending["prune_reflection"]
    community = dict(zip(part.ids, part.membership.tolist(), strict=True)) if part else {}
    _shy(st, tiers, pruned | _busy(st), community, s, out)
    keep: set[str] = set()
    if part is not None:
        excluded = pruned | {rid for rid, state in st.lifecycle.items() if state in UNUSABLE}
        groups, more = rem_groups(st, part, excluded, s)
        out.skipped.update(more)
        keep = current_policies(st, part, s)
        for c, members, previous in groups:  # texts read per draft: memory stays flat
            _summarize(st, c, members, previous, texts, out)
            if previous:
                keep.add(previous)
    _orphans(st, keep, out)
    return ConsolidationPlan(
        id=plan_id,
        fingerprint=st.fingerprint,
        planned_at=planned_at,
        planner=PLANNER,
        settings=s,
        triage={t: triage.get(t, 0) for t in (*("hot", "warm", "stale", "new"), "contested")},
        items=out.items,
        skipped=dict(out.skipped),
    )
