"""Spikuit consolidation plans (``spkt consolidate --json``) as proposals.

``spkt consolidate apply`` is all-or-nothing; importing the plan lets a person decide
item by item.  Each item becomes one proposal (through the curator intake, so it is
validated like any other), in this order:

* advisory items first — ``propose_merge``, ``propose_contrast`` (REM) and
  ``flag_forget`` (triage) — as ``note`` proposals naming their neurons: Spikuit
  never applies them either;
* then Spikuit's own apply order: ``add_synapse`` (SWS latent links, ``relates_to``,
  confidence ``inferred`` with the similarity as score) → ``add_synapse``;
  ``set_weight`` (SHY decay) → ``set_synapse_weight``; ``remove_synapse`` (SHY prune)
  → ``remove_synapse``, once per bidirectional pair (retiring one row retires both,
  as in Spikuit); ``remove_neuron`` → ``retire_neuron``.

Accepting every item therefore leaves the same live neurons, synapses and weights
as ``spkt consolidate apply`` on the same brain.  Ids are ``spkt-<plan digest>-<n>``,
so importing the same plan twice is refused.  Each proposal's row in
``brainview_plan_item`` keeps the plan's ``state_hash``: when the user brain's hash
(:mod:`brainview.services.apply.state_hash`) no longer matches — discounting the
changes brainview itself applied for items of the same plan — the items are stale.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.core.json_strict import loads_input
from brainview.errors import InvalidInputError
from brainview.services import intake
from brainview.services.apply.execute import changeset_exists
from brainview.services.apply.plan import Plan, RowChange
from brainview.services.apply.state_hash import graph_state_hash
from brainview.services.project import Project
from brainview.store.bv_schema import ensure_apply_schema
from brainview.store.connect import refuse_brain_path
from brainview.store.era import Era
from brainview.store.plan_item_rows import insert_plan_items, intents_of_plan, plan_items_of
from brainview.store.readmodel import table_exists
from brainview.store.rows import driver

ADVISORY = ("propose_merge", "propose_contrast", "flag_forget")
SKILL = "consolidate"


def _load(plan: str | bytes | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(plan, str | bytes):
        try:
            data = loads_input(plan)
        except (ValueError, UnicodeDecodeError, RecursionError) as err:
            raise InvalidInputError(f"plan: not valid JSON ({err})") from None
    else:
        data = dict(plan)
    if not isinstance(data, dict):
        raise InvalidInputError("plan: must be a JSON object (spkt consolidate --json)")
    state = data.get("state_hash")
    if not isinstance(state, str) or not state or len(state) > 64:
        raise InvalidInputError("plan.state_hash: required string")
    for section, key in (("sws", "latent_synapses"), ("shy", "decayed"), ("shy", "prunable")):
        part = data.get(section, {})
        if not isinstance(part, dict) or not isinstance(part.get(key, []), list):
            raise InvalidInputError(f"plan.{section}.{key}: must be a list")
    return data


def _items(data: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """``(action, item)`` in import order (see the module docstring)."""

    def section(name: str, key: str) -> list[dict[str, Any]]:
        items = (data.get(name) or {}).get(key) or []
        if not all(isinstance(i, dict) for i in items):
            raise InvalidInputError(f"plan.{name}.{key}: items must be objects")
        return items

    advisory = section("rem", "near_duplicates") + section("triage", "forget_candidates")
    ordered = advisory + section("sws", "latent_synapses") + section("shy", "decayed")
    seen_pairs: set[tuple[frozenset[str], str]] = set()
    for item in section("shy", "prunable"):
        pair = (frozenset((str(item.get("pre")), str(item.get("post")))), str(item.get("type")))
        if item.get("type") in ("relates_to", "contrasts"):
            if pair in seen_pairs:
                continue
            seen_pairs.add(pair)
        ordered.append(item)
    ordered += section("shy", "removable_neurons")
    return [(str(i.get("action", "")), i) for i in ordered]


def _proposal(action: str, item: dict[str, Any], state: str) -> tuple[str, dict[str, Any], str]:
    """``(kind, params, rationale)`` of one plan item."""
    why = f"spkt consolidate (state {state}): "
    if action == "add_synapse":
        params = {
            "pre": item.get("pre"),
            "post": item.get("post"),
            "type": item.get("type", "relates_to"),
            "weight": 0.5,
            "confidence": "inferred",
            "confidence_score": item.get("similarity", 1.0),
        }
        return "add_synapse", params, why + f"latent link, similarity {item.get('similarity')}"
    if action in ("set_weight", "remove_synapse"):
        edge = {k: item.get(k) for k in ("pre", "post", "type")}
        old, new = item.get("old_weight"), item.get("new_weight")
        if action == "set_weight":
            return "set_synapse_weight", {**edge, "weight": new}, why + f"decay {old} → {new}"
        return "remove_synapse", edge, why + f"prune: {old} would decay to {new}"
    if action == "remove_neuron":
        reason = item.get("reason", "isolated")
        return "retire_neuron", {"neuron": item.get("id")}, why + f"remove neuron ({reason})"
    if action in ADVISORY:
        named = ("neuron_a", "neuron_b") if "neuron_a" in item else ("id",)
        ids = [item.get(k) for k in named]
        detail = {k: v for k, v in item.items() if k not in (*named, "action")}
        note = ", ".join(f"{k} {v}" for k, v in detail.items())
        return "note", {"neurons": ids}, why + f"{action.replace('_', ' ')} (advisory; {note})"
    raise InvalidInputError(f"plan item: unknown action {action!r}")


def digest(data: Mapping[str, Any]) -> str:
    """A short digest of the plan's canonical JSON."""
    canon = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canon.encode()).hexdigest()[:10]


def current_hash(project: Project) -> str:
    """The hash ``spkt consolidate`` would put in a plan of the user brain now."""
    with project.user.read() as uconn:
        return graph_state_hash(driver(uconn), project.user.era, path=project.user.path)


def import_plan(
    project: Project,
    plan: str | bytes | Mapping[str, Any],
    *,
    skill: str = SKILL,
    source: str = "spkt-plan",
    now: datetime | None = None,
    dry_run: bool = False,
) -> list[intake.Proposal]:
    """Queue every item of a consolidation plan as a proposal, atomically.

    Refused (InvalidInputError, nothing written) when the plan is malformed, was
    already imported, names something the brain no longer has, or was made for
    another state of the brain (its ``state_hash`` differs from the brain's now).
    """
    now = now or datetime.now(UTC)
    data = _load(plan)
    state = str(data["state_hash"])
    found = current_hash(project)
    if found != state:
        raise InvalidInputError(
            f"plan.state_hash: the user brain changed since this plan was made (plan {state}, "
            f"now {found}); re-run spkt consolidate"
        )
    tag = digest(data)
    made = fsrs_math.format_ts(now)
    raws, rows = [], []
    for seq, (action, item) in enumerate(_items(data)):
        kind, params, rationale = _proposal(action, item, state)
        pid = f"spkt-{tag}-{seq:04d}"
        raws.append(
            {
                "id": pid,
                "skill": skill,
                "kind": kind,
                "params": params,
                "rationale": rationale,
                "created_at": made,
                "runtime": f"spkt consolidate · state {state}",
            }
        )
        rows.append({"p": pid, "d": tag, "h": state, "q": seq, "a": action, "j": json.dumps(item)})
    if not raws:
        raise InvalidInputError("plan: no items to import")
    batch: list[intake.Proposal] = []
    for start in range(0, len(raws), intake.MAX_BATCH):
        batch += intake.parse_batch(raws[start : start + intake.MAX_BATCH], now)
    intake.check_against_brains(project, batch)
    if not dry_run:
        with project.require_agent().write() as conn:
            intake.store(conn, batch, source=source, now=now)
            ensure_apply_schema(conn)
            insert_plan_items(conn, rows)
    return batch


def import_plan_file(project: Project, path: str | Path, **kw: Any) -> list[intake.Proposal]:
    """:func:`import_plan` from a file (``brainview propose --from-spkt-plan FILE``)."""
    refuse_brain_path(path, "plan")
    try:
        raw = Path(path).read_bytes()
    except OSError as err:
        raise InvalidInputError(f"cannot read plan {path}: {err.strerror or err}") from None
    return import_plan(project, raw, **kw)


def hash_reasons(
    agent_conn: Connection,
    user_conn: Connection,
    era: Era,
    ids: Sequence[str],
    *,
    path: Path | None = None,
    table_known: bool = False,
) -> dict[str, str]:
    """Proposal id → why it is stale, for items of plans whose state hash no longer
    matches the user brain (other ids are absent).  ``table_known``: the caller saw
    ``brainview_plan_item`` exist."""
    if not ids or not (table_known or table_exists(agent_conn, "brainview_plan_item")):
        return {}
    plans: dict[str, tuple[str, list[str]]] = {}
    for pid, dig, state in plan_items_of(agent_conn, ids):
        plans.setdefault(dig, (state, []))[1].append(pid)
    out: dict[str, str] = {}
    raw = driver(user_conn)
    for dig, (state, pids) in plans.items():
        own = _own_changes(agent_conn, raw, dig) if era.has_changelog else []
        now_hash = graph_state_hash(raw, era, revert=own, path=path)
        if now_hash != state:
            reason = (
                f"the user brain changed since the spkt plan was made "
                f"(plan state {state}, now {now_hash})"
            )
            out.update(dict.fromkeys(pids, reason))
    return out


def _own_changes(agent_conn: Connection, raw: Any, plan_digest: str) -> list[RowChange]:
    """Row changes brainview applied (and did not revert) for items of one plan."""
    if not table_exists(agent_conn, "brainview_apply_intent"):
        return []
    rows = intents_of_plan(agent_conn, plan_digest)
    reverted = {d for d, action, cs, _j in rows if action == "revert" and changeset_exists(raw, cs)}
    changes: list[RowChange] = []
    for decision_id, action, cs, plan_json in rows:
        if action == "apply" and decision_id not in reverted and changeset_exists(raw, cs):
            changes += Plan.from_json(plan_json).changes
    return changes
