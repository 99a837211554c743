"""Everything the triage screen shows about one proposal.

The user-brain side (neurons it names, the preview) and the agent-brain side
(consulted reflections with stance, card, R now, recent grades; retrieved-only ones
apart).

The preview is the apply plan itself (:mod:`brainview.services.apply`): for a
pending proposal, the rows accepting it now would change, computed by the code that
applies it; for an accepted one, the plan recorded with the decision (what was, or
is being, applied).  A proposal that can no longer be applied is shown stale with
the planner's reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from brainview.core.json_strict import loads_stored
from brainview.core.kinds import ParamError, Refs, check_params, is_agent_kind, is_learning_kind
from brainview.core.outcomes import OUTCOME_KIND
from brainview.core.refs import name_refs, parse_refs
from brainview.core.safe_text import first_line
from brainview.errors import ConflictError, NotFoundError
from brainview.services import lifecycle
from brainview.services.apply import intent as intents
from brainview.services.apply.describe import log_summary, preview_lines
from brainview.services.apply.plan import Plan
from brainview.services.apply.planner import build_plan, context
from brainview.services.apply.stale import QueuedRef, stale_all
from brainview.services.apply.stream_plan import preview_stream, streams
from brainview.services.apply.view import UserView
from brainview.services.consolidate.review_view import AgentItemView, item_view, name_item_refs
from brainview.services.project import Project
from brainview.store import approval_rows, proposal_reads
from brainview.store.bounded import too_large
from brainview.store.cards import card_of
from brainview.store.decision_rows import latest_decision
from brainview.store.readmodel import NeuronRow, neurons_by_ids
from brainview.store.rows import driver


@dataclass(frozen=True)
class ReflectionView:
    """A reflection as the agent-brain pane shows it."""

    id: str
    role: str
    stance: str | None
    note: str | None
    content: str
    skill: str | None
    live: bool
    stability: float | None
    retrievability: float | None
    recent_grades: list[int]
    state: str = "live"
    """Lifecycle state: live, challenged, invalidated or retired."""
    display: str | None = None
    """``content`` with ``[user:…]`` references named (``⟦title⟧``), for the screen."""


@dataclass
class ProposalDetail:
    """One proposal with both brains' context."""

    id: str
    kind: str
    skill: str
    status: str
    summary: str
    rationale: str
    created_at: str
    params: dict[str, Any]
    runtime: str | None
    stale: str | None
    neurons: dict[str, NeuronRow] = field(default_factory=dict)
    preview: list[tuple[str, str, str]] = field(default_factory=list)
    """(what, before, after) lines of the plan: one per changed row (or column)."""
    consulted: list[ReflectionView] = field(default_factory=list)
    retrieved: list[ReflectionView] = field(default_factory=list)
    plan: Plan | None = None
    """The apply plan the preview shows (``None``: it cannot be applied now)."""
    change_log: str = ""
    """What the apply writes into Spikuit's change log, in one line."""
    apply_state: str | None = None
    """The latest decision's ``apply_state`` (``None`` while pending)."""
    suspicion: str | None = None
    """Flags set at intake or by an invalidation (JSON list), or ``None``."""
    agent_item: AgentItemView | None = None
    """For agent-brain kinds (consolidation): preview, plan, policy review aids."""
    params_size: int | None = None
    """Set when the stored ``params_json`` was too large to load (``params`` is ``{}``)."""
    rationale_display: str | None = None
    """``rationale`` with ``[user:…]`` references named (``⟦title⟧``), for the screen."""
    approval: tuple[str, str] | None = None
    """``(who, verdict)`` of the vote waiting for a second person, or ``None``."""
    far_titles: dict[str, str] = field(default_factory=dict)
    """Titles of the other user neurons the change rows name (a synapse's far end, a
    lineage parent), by id: what the change table shows in place of their ids."""


def load(project: Project, proposal_id: str, now: datetime) -> ProposalDetail:
    """Read one proposal and its context from both brains."""
    agent = project.require_agent()
    with agent.read() as conn:
        stored = proposal_reads.proposal_shown(conn, proposal_id)
        if stored is None:
            raise NotFoundError(f"no proposal {proposal_id}")
        if stored.kind == OUTCOME_KIND:
            raise NotFoundError(
                f"{proposal_id} is a tutor/QABot outcome, not a proposal: "
                f"brainview outcome show {proposal_id}"
            )
        links = proposal_reads.consult_links(conn, proposal_id)
        votes = approval_rows.open_votes(conn, [proposal_id]).get(proposal_id)
        refl = neurons_by_ids(conn, agent.era, [r[0] for r in links])
        states = lifecycle.statuses(conn, agent.era, [r[0] for r in links])
        views: list[ReflectionView] = []
        for rid, role, stance, note in links:
            n = refl.get(rid)
            card = card_of(conn, agent.era, rid)
            grades = proposal_reads.recent_grades(conn, rid, 5)
            views.append(
                ReflectionView(
                    id=rid,
                    role=role,
                    stance=stance,
                    note=note,
                    content=n.content if n else "(missing reflection)",
                    skill=n.domain if n else None,
                    live=bool(n and n.live),
                    stability=card.stability if card else None,
                    retrievability=(  # never reviewed: no R (null), not 0.0
                        card.retrievability(now)
                        if card and card.stability and card.last_review
                        else None
                    ),
                    recent_grades=grades,
                    state=states[rid].state if rid in states else "retired",
                )
            )
    params = {} if stored.params_json is None else loads_stored(stored.params_json)
    detail = ProposalDetail(
        id=stored.id,
        kind=stored.kind,
        skill=stored.skill,
        status=stored.status,
        summary=stored.summary,
        rationale=stored.rationale,
        created_at=stored.created_at,
        params=params,
        runtime=stored.runtime,
        suspicion=stored.suspicion,
        stale=None,
        consulted=[v for v in views if v.role == "consulted"],
        retrieved=[v for v in views if v.role == "retrieved"],
        approval=(str(votes[0]["actor"]), str(votes[0]["verdict"])) if votes else None,
    )
    if stored.params_json is None:  # too large to load: shown as such, never applied
        detail.params_size = stored.params_size
        detail.stale = too_large(detail.params_size) if detail.status == "pending" else None
        return detail
    try:
        refs, _ = check_params(detail.kind, params)
    except ParamError:  # stored by an older version or by hand: shown, never applied
        refs = Refs()
    _name_refs(project, detail)
    if is_learning_kind(detail.kind):
        from brainview.services.learnings.detail import attach

        with agent.read() as aconn:
            attach(aconn, detail)
        return detail
    if is_agent_kind(detail.kind):
        with agent.read() as aconn, project.user.read() as uconn:
            if detail.status == "pending":
                ref = QueuedRef(stored.id, stored.kind, stored.params_json, stored.created_at)
                era, path = project.user.era, project.user.path
                found = stale_all(uconn, era, aconn, [ref], path=path, agent_era=agent.era)
                detail.stale = found.get(detail.id)
            last = latest_decision(aconn, detail.id) if detail.status != "pending" else None
            detail.apply_state = str(last["apply_state"]) if last else None
            detail.agent_item = item_view(
                aconn, agent.era, detail.id, detail.kind, params,
                pending=detail.status == "pending", now=now,
            )  # fmt: skip
            name_item_refs(uconn, project.user.era, detail.agent_item, params)
        detail.preview = detail.agent_item.preview
        detail.change_log = detail.agent_item.change_log
        return detail
    with agent.read() as aconn, project.user.read() as uconn:
        detail.neurons = neurons_by_ids(uconn, project.user.era, list(refs.neurons))
        if detail.status == "pending":
            ref = QueuedRef(stored.id, stored.kind, stored.params_json, stored.created_at)
            era, path = project.user.era, project.user.path
            found = stale_all(uconn, era, aconn, [ref], path=path, agent_era=agent.era)
            detail.stale = found.get(detail.id)
        _attach_plan(uconn, aconn, project, detail, now)
    return detail


def _name_refs(project: Project, detail: ProposalDetail) -> None:
    """Name the ``[user:…]`` references of the shown reflections (one batch read)."""
    views = detail.consulted + detail.retrieved
    shown = {v.id: v.content[:DISPLAY_CHARS] for v in views}
    texts = [*shown.values(), detail.rationale]
    wanted = sorted({r for text in texts for r in parse_refs(text)})
    if not wanted:
        return
    with project.user.read() as uconn:
        users = neurons_by_ids(uconn, project.user.era, wanted)
    known = {u.id: (first_line(u.content, 40) or u.id, u.live) for u in users.values()}

    def named(v: ReflectionView) -> ReflectionView:
        return replace(v, display=name_refs(shown[v.id], known))

    if parse_refs(detail.rationale):
        detail.rationale_display = name_refs(detail.rationale, known)
    detail.consulted = [named(v) for v in detail.consulted]
    detail.retrieved = [named(v) for v in detail.retrieved]


DISPLAY_CHARS = 2_000


def _attach_plan(
    uconn: Connection, aconn: Connection, project: Project, d: ProposalDetail, now: datetime
) -> None:
    """Fill ``plan``, ``preview``, ``change_log`` and ``apply_state``."""
    last = latest_decision(aconn, d.id) if d.status != "pending" else None
    d.apply_state = str(last["apply_state"]) if last else None
    if last is not None and d.status == "accepted":
        recorded = intents.of_decision(aconn, str(last["id"]), "apply")
        if recorded is None:
            d.change_log = "recorded only: brainview did not apply it"
            return
        d.plan = recorded.plan
    else:
        raw, era = driver(uconn), project.user.era
        try:
            ctx = context(d.id, "preview", now)
            if streams(raw, d.kind, d.params):  # a big domain: counted, as it is applied
                d.plan = preview_stream(raw, era, d.kind, d.params, ctx)
            else:
                d.plan = build_plan(UserView(raw, era), d.kind, d.params, ctx)
        except ConflictError as err:
            if d.status == "pending" and not d.stale:
                d.stale = str(err)
            d.change_log = f"cannot be applied: {err}"
            return
    d.preview = preview_lines(d.plan)
    d.change_log = log_summary(d.plan)
    _far_titles(uconn, project, d)


def _far_titles(uconn: Connection, project: Project, d: ProposalDetail) -> None:
    """Titles for the neurons the change rows name that ``d.neurons`` lacks (one read)."""
    if d.plan is None or d.plan.stream is not None:
        return
    ends = {
        str(k)
        for c in d.plan.changes
        if c.table in ("synapse", "neuron_predecessor")
        for k in c.key[:2]
    } - set(d.neurons)
    if ends:
        rows = neurons_by_ids(uconn, project.user.era, sorted(ends)[:200])
        d.far_titles = {u.id: first_line(u.content, 40) or u.id for u in rows.values()}


def user_titles(project: Project, content: str) -> dict[str, str]:
    """Titles of the user neurons ``content`` refers to (``[user:…]``), by id: what a
    screen shows in place of each reference.  Unknown ids are left out."""
    wanted = parse_refs(content)
    if not wanted:
        return {}
    with project.user.read() as uconn:
        users = neurons_by_ids(uconn, project.user.era, wanted)
    return {u.id: first_line(u.content, 40) or u.id for u in users.values()}
