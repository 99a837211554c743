"""Audit trail and blast radius of reflections on demo brains and a real Spikuit brain."""

from __future__ import annotations

import io
import json
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fsrs import Scheduler
from rich.console import Console

from brainview.core import fsrs_math
from brainview.demo.generator import DEMO_NOW, DemoInfo
from brainview.errors import NotFoundError
from brainview.services import audit, intake, lifecycle, review
from brainview.services.lifecycle import blast
from brainview.services.project import Project
from brainview.tui.widgets.audit_view import render_trail

NOFUZZ = Scheduler(enable_fuzzing=False)
T = [DEMO_NOW + timedelta(hours=h) for h in range(8)]
HOSTILE = "[@click=app.quit]x[/] \x1b]52;c;cm0=\x07 \x9b31m \u202eevil\u202c \x00"


@pytest.fixture
def demo(make_demo: Any) -> DemoInfo:
    """A fresh copy of the standard demo project."""
    return make_demo()[1]


def project(info: DemoInfo) -> Project:
    return Project.locate(info.root, write_agent=True)


def note(pid: str, consulted: list[Any], at: Any) -> dict[str, Any]:
    return {"id": pid, "kind": "note", "params": {}, "consulted": consulted,
            "created_at": fsrs_math.format_ts(at)}  # fmt: skip


def life_of_a_reflection(info: DemoInfo) -> tuple[str, dict[str, Any]]:
    """create (by a rejection) → strong → miss → challenged → invalidated → reinstated."""
    ids: dict[str, Any] = {}
    with project(info) as p:
        first = review.decide(p, info.proposal_ids[0], "reject", reason="purposes differ",
                              decider="alice", now=T[0], scheduler=NOFUZZ)  # fmt: skip
        rid = first.new_reflection_id
        assert rid is not None
        intake.submit(p, [note("p-ok", [rid], T[1]), note("p-bad", [rid], T[1])], now=T[1])
        ids["strong"] = review.decide(
            p, "p-ok", "accept", decider="bob", now=T[1], scheduler=NOFUZZ
        )
        ids["miss"] = review.decide(
            p, "p-bad", "reject", decider="carol", now=T[2], scheduler=NOFUZZ
        )
        ids["challenge"] = lifecycle.challenge(
            p, [rid], reason="looks planted", actor="dave", now=T[3]
        )
        ids["invalidate"] = lifecycle.invalidate(p, [rid], reason="it is", actor="dave", now=T[4])
        ids["reinstate"] = lifecycle.reinstate(
            p, [rid], reason="false alarm", actor="erin", now=T[5]
        )
        ids["first"] = first
    return rid, ids


def test_full_life_reads_back_completely_as_dataclass_and_json(demo: DemoInfo) -> None:
    rid, ids = life_of_a_reflection(demo)
    with project(demo) as p:
        trail = audit.trail(p, rid)
    o = trail.origin
    assert (o.kind, o.actor, o.decision_id, o.proposal_id, o.reason) == (
        "rejection", "alice", ids["first"].decision_id, demo.proposal_ids[0], "purposes differ"
    )  # fmt: skip
    grades = [
        (g.grade_name, g.proposal_id, g.verdict, g.decider, g.stance, g.via) for g in trail.grades
    ]
    assert grades == [
        ("strong", "p-ok", "accept", "bob", "support", "brainview"),
        ("miss", "p-bad", "reject", "carol", "support", "brainview"),
    ]
    assert [g.decision_id for g in trail.grades] == [
        ids["strong"].decision_id,
        ids["miss"].decision_id,
    ]
    assert [(e.state, e.actor, e.reason, e.action) for e in trail.lifecycle] == [
        ("challenged", "dave", "looks planted", "challenge"),
        ("invalidated", "dave", "it is", "invalidate"),
        ("live", "erin", "false alarm", "reinstate"),
    ]
    assert [e.batch_id for e in trail.lifecycle] == [
        ids[k].batch_id for k in ("challenge", "invalidate", "reinstate")
    ]
    assert trail.status.state == "live" and trail.retired_at is None
    assert {(p.proposal_id, p.status, p.verdict) for p in trail.influenced} == {
        ("p-ok", "accepted", "accept"), ("p-bad", "rejected", "reject")
    }  # fmt: skip
    # The rejection's links to the consulted reflections, then STDP on them.
    created = [w for w in trail.weight_changes if w.before is None]
    assert {w.decision_id for w in created} == {ids["first"].decision_id, ids["miss"].decision_id}
    stdp_steps = {
        (pre, post, typ) for pre, post, typ, _b, _a in ids["strong"].stdp if rid in (pre, post)
    }
    stepped = {(w.pre, w.post, w.type) for w in trail.weight_changes if w.before is not None}
    assert stepped == stdp_steps
    data = json.loads(trail.to_json())
    assert data == json.loads(json.dumps(trail.to_dict()))
    assert data["origin"]["kind"] == "rejection" and len(data["lifecycle"]) == 3
    assert [g["grade_name"] for g in data["grades"]] == ["strong", "miss"]


def test_origins_pre_existing_and_outside_spikes(demo: DemoInfo) -> None:
    rid = demo.reflection_ids[0]
    with project(demo) as p:
        trail = audit.trail(p, rid)
        with pytest.raises(NotFoundError):
            audit.trail(p, "r-missing")
    assert trail.origin.kind == "pre-existing" and trail.origin.at == trail.created_at
    assert trail.grades and {g.via for g in trail.grades} == {"outside"}
    assert trail.lifecycle == [] and trail.merges == []


def test_merges_come_from_lineage(demo: DemoInfo) -> None:
    a, b = demo.reflection_ids[:2]
    conn = sqlite3.connect(demo.root / ".spikuit" / "agent" / "circuit.db")
    conn.execute(
        "INSERT INTO neuron_predecessor VALUES (?, ?, '2026-11-29T00:00:00+00:00')", (a, b)
    )
    conn.commit()
    conn.close()
    with project(demo) as p:
        assert [(m.role, m.other) for m in audit.trail(p, a).merges] == [("absorbed", b)]
        assert [(m.role, m.other) for m in audit.trail(p, b).merges] == [("merged_into", a)]


@pytest.mark.compat
def test_imported_origin_from_a_real_spikuit_brain(tmp_path: Path) -> None:
    from tests.compat.spikuit_builder import build_spikuit_project

    built = build_spikuit_project(tmp_path / "proj", hostile=True)
    agent = built["agent"]["ids"]
    with Project.locate(tmp_path / "proj") as p:
        trail = audit.trail(p, agent["all"][0])
        hostile = audit.trail(p, agent["all"][-1])
    assert trail.origin.kind == "imported" and trail.origin.actor == "system (system)"
    assert [g.grade_name for g in trail.grades] == ["miss", "strong"]
    text = hostile.to_json()
    assert text.isascii() and "\x1b" not in text and "\\u001b" in text


def test_blast_radius_lists_proposals_policies_and_neighbours(demo: DemoInfo) -> None:
    member = demo.themes["keyword overlap"][0]  # summarised by the first demo policy
    with project(demo) as p:
        opposed = [{"reflection": member, "stance": "oppose"}]
        batch = [note("p-sup", [member], T[0]), note("p-opp", opposed, T[0])]
        intake.submit(p, [*batch, note("p-done", [member], T[0])], now=T[0])
        review.decide(p, "p-done", "accept", decider="bob", now=T[1], scheduler=NOFUZZ)
        radius = blast.radius(p, [member])
    by_id = {h.proposal_id: h for h in radius.proposals}
    assert by_id["p-sup"].status == "pending" and by_id["p-sup"].supported
    assert not by_id["p-opp"].supported
    assert (by_id["p-done"].status, by_id["p-done"].verdict, by_id["p-done"].decider) == (
        "accepted", "accept", "bob"
    )  # fmt: skip
    assert "p-sup" in radius.default_flags() and "p-opp" not in radius.default_flags()
    policies = [n for n in radius.neighbours if n.is_policy]
    assert [n.neuron_id for n in policies] == [demo.policy_ids[0]]
    assert radius.neighbours[0].is_policy  # policies first
    linked = {n.neuron_id for n in radius.neighbours if not n.is_policy}
    assert linked and linked <= set(demo.reflection_ids + demo.adversarial_ids)
    cofired = [n for n in radius.neighbours if any("co-fired" in r for r in n.relations)]
    assert cofired  # the accepted decision fired p-done's consulted reflections together


def test_render_trail_is_inert(demo: DemoInfo) -> None:
    rid = demo.reflection_ids[1]
    with project(demo) as p:
        lifecycle.challenge(p, [rid], reason="odd", actor="mallory", now=T[0])
    # The services refuse control and bidi characters now (test_text_rules.py); a brain
    # written by an older version, or by hand, may still hold them.
    conn = sqlite3.connect(demo.root / ".spikuit" / "agent" / "circuit.db")
    conn.execute(
        "UPDATE brainview_lifecycle SET reason = ?, actor = ?", (HOSTILE, "mallory" + HOSTILE)
    )
    conn.commit()
    conn.close()
    with project(demo) as p:
        trail = audit.trail(p, rid)
    console = Console(file=io.StringIO(), width=200, force_terminal=True, color_system="truecolor")
    console.print(render_trail(trail, show_content=True))
    out = console.file.getvalue()  # type: ignore[attr-defined]
    stripped = out.replace("\x1b[", "")  # SGR colour codes only start with ESC [
    assert "\x1b]" not in out and "\x9b" not in out and "\u202e" not in out and "\x00" not in out
    assert "[@click=app.quit]x[/]" in stripped and "⚠ challenged" in stripped
