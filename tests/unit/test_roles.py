"""Roles: the permission table, and every Session write refused below the role it
needs — with the one-line refusal naming that role, and no row written."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from brainview.config import Config
from brainview.core import roles
from brainview.core.identity import ROLES, Identity
from brainview.core.outcomes import OutcomeReport
from brainview.demo.generator import DEMO_NOW, DemoInfo
from brainview.errors import ExitCode, RoleRefusedError
from brainview.services import consolidate
from brainview.services.lifecycle.blast import BlastAction
from brainview.services.session import Session
from brainview.store.discovery import discover

# -- the table ------------------------------------------------------------------------


def test_every_action_names_its_weakest_role_and_how_it_is_called() -> None:
    assert set(roles.NEEDS) == set(roles.DOING)
    assert roles.may_do("viewer") == []
    assert set(roles.may_do("reviewer")) == {
        "decide",
        "dismiss",
        "undo_own",
        "fading",
        "outcome",
        "export",
        "recover",
        "propose",
        "report_held_back",
        "decide_held_back",
    }
    assert roles.may_do("maintainer") == list(roles.NEEDS)
    for only in ("challenge", "invalidate", "reinstate", "blast", "undo_lifecycle"):
        assert roles.NEEDS[only] == "maintainer"
    for only in ("consolidate", "decide_consolidation", "writing", "undo_other"):
        assert roles.NEEDS[only] == "maintainer"


def test_roles_are_ordered_and_stronger_roles_keep_what_weaker_ones_may() -> None:
    for weaker, stronger in zip(ROLES, ROLES[1:], strict=False):
        assert set(roles.may_do(weaker)) <= set(roles.may_do(stronger))


def test_the_refusal_is_one_line_naming_the_role_needed() -> None:
    assert (
        roles.refusal("invalidate", "alice", "reviewer")
        == "invalidating reflections needs the maintainer role (alice is a reviewer)"
    )
    assert roles.refusal("decide", "vic", "viewer") == (
        "deciding proposals needs the reviewer role (vic is a viewer)"
    )
    assert roles.refusal("decide", "alice", "reviewer") is None
    assert all(roles.refusal(a, "m", "maintainer") is None for a in roles.NEEDS)


# -- sessions ---------------------------------------------------------------------------


def _as(root: Path, name: str, role: str) -> Session:
    ident = Identity(name, role)  # type: ignore[arg-type]
    return Session.start(discover(root), clock=lambda: DEMO_NOW, identity=ident)


def _dump(root: Path) -> dict[str, Any]:
    """Every row of both brains (read through SQLite, read-only)."""
    out: dict[str, Any] = {}
    for db in (root / ".spikuit" / "circuit.db", root / ".spikuit" / "agent" / "circuit.db"):
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        tables = [
            t
            for (t,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name"
            )
        ]
        for t in tables:
            out[f"{db.parent.name}/{t}"] = sorted(
                conn.execute(f'SELECT * FROM "{t}"').fetchall(), key=repr
            )
        conn.close()
    return out


def _queue_consolidation(root: Path) -> list[str]:
    """A maintainer plans and queues a consolidation; the queued proposal ids."""
    cfg = Config()
    settings = consolidate.settings_from(cfg.consolidate, cfg.reflections.pruning_threshold)
    with Session.start(discover(root), config=cfg, clock=lambda: DEMO_NOW) as boss:
        with boss.project() as project:
            plan = consolidate.plan(project, now=DEMO_NOW, settings=settings)
        return boss.queue_consolidation(plan)


def _maintainer_only(info: DemoInfo, plan_ids: list[str]) -> dict[str, Callable[[Session], Any]]:
    rid = info.reflection_ids[0]
    return {
        "challenging reflections": lambda s: s.lifecycle("challenge", [rid], "why"),
        "invalidating reflections": lambda s: s.lifecycle("invalidate", [rid], "why"),
        "reinstating reflections": lambda s: s.lifecycle("reinstate", [rid]),
        "invalidating reflections (blast)": lambda s: s.blast(
            BlastAction("invalidate", (rid,), (), "bad")
        ),
        "undoing a lifecycle batch": lambda s: s.undo_lifecycle(),
        "pausing or resuming reflection writing": lambda s: s.set_writing(False),
        "pausing or resuming reflection writing (toggle)": lambda s: s.toggle_writing(),
        "deciding consolidation proposals": lambda s: s.decide(plan_ids[:1], "accept"),
        "deciding consolidation proposals (dismiss)": lambda s: s.dismiss(plan_ids[0]),
    }


def test_a_reviewer_is_refused_every_maintainer_action_and_nothing_is_written(
    demo: tuple[Path, DemoInfo],
) -> None:
    root, info = demo
    plan_ids = _queue_consolidation(root)
    assert plan_ids
    before = _dump(root)
    with _as(root, "alice", "reviewer") as alice:
        for doing, call in _maintainer_only(info, plan_ids).items():
            with pytest.raises(RoleRefusedError) as err:
                call(alice)
            expected = doing.split(" (")[0] + " needs the maintainer role (alice is a reviewer)"
            assert err.value.message == expected
            assert err.value.code == ExitCode.REFUSED and err.value.kind == "role"
        assert alice.open_modes in ([], [(False, False)])  # never opened for writing
    assert _dump(root) == before


def test_a_viewer_is_refused_every_write_and_nothing_is_written(
    demo: tuple[Path, DemoInfo], tmp_path: Path
) -> None:
    root, info = demo
    pid, rid = info.proposal_ids[0], info.reflection_ids[0]
    before = _dump(root)
    out = tmp_path / "queue.csv"
    writes: list[Callable[[Session], Any]] = [
        lambda s: s.decide([pid], "accept"),
        lambda s: s.decide([pid], "reject", reason="no"),
        lambda s: s.dismiss(pid),
        lambda s: s.undo(),
        lambda s: s.decide_fading(rid, "rescue", threshold=0.5),
        lambda s: s.undo_fading(1),
        lambda s: s.report_outcome(
            OutcomeReport("o-1", "qabot", "success", "ok", [(rid, "support", None)])
        ),
        lambda s: s.undo_outcome("o-1"),
        lambda s: s.export_rows([{"id": pid}], out),
        lambda s: s.lifecycle("invalidate", [rid], "why"),
        lambda s: s.set_writing(False),
    ]
    with _as(root, "vic", "viewer") as vic:
        for call in writes:
            with pytest.raises(RoleRefusedError) as err:
                call(vic)
            assert "(vic is a viewer)" in err.value.message
        assert vic.recover() == 0  # finishing an interrupted change is a write too
        assert vic.open_modes in ([], [(False, False)])
    assert _dump(root) == before
    assert not out.exists()


def test_decisions_record_the_signed_in_name_and_undo_of_another_needs_a_maintainer(
    demo: tuple[Path, DemoInfo],
) -> None:
    root, info = demo
    first, second = info.proposal_ids[:2]
    with _as(root, "alice", "reviewer") as alice, _as(root, "bob", "reviewer") as bob:
        done = alice.decide([first], "reject", reason="off topic")
        before = _dump(root)
        with pytest.raises(RoleRefusedError) as err:
            bob.undo(done[0].decision_id)
        assert err.value.message == (
            "undoing someone else's decision needs the maintainer role (bob is a reviewer)"
        )
        with pytest.raises(RoleRefusedError):
            bob.undo()  # the project's last decision is alice's too
        with pytest.raises(RoleRefusedError):
            bob.undo_named(bob.undo_target(first))
        assert _dump(root) == before
        mine = bob.decide([second], "reject")
        assert [r.proposal_id for r in bob.undo(mine[0].decision_id)] == [second]
        assert [r.proposal_id for r in alice.undo()] == [first]  # her own: allowed
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    rows = conn.execute(
        "SELECT proposal_id, decider, undone_by FROM brainview_decision ORDER BY decided_at"
    ).fetchall()
    conn.close()
    assert sorted(rows) == [(first, "alice", "alice"), (second, "bob", "bob")]


def test_a_maintainer_undoes_someone_elses_decision_under_their_own_name(
    demo: tuple[Path, DemoInfo],
) -> None:
    root, info = demo
    pid = info.proposal_ids[0]
    with _as(root, "alice", "reviewer") as alice, _as(root, "carol", "maintainer") as carol:
        done = alice.decide([pid], "reject")
        assert [r.proposal_id for r in carol.undo(done[0].decision_id)] == [pid]
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    row = conn.execute("SELECT decider, undone_by FROM brainview_decision").fetchone()
    conn.close()
    assert row == ("alice", "carol")


def test_a_session_started_by_hand_is_a_maintainer_as_before(
    demo: tuple[Path, DemoInfo],
) -> None:
    root, info = demo
    with Session.start(discover(root), clock=lambda: DEMO_NOW, decider="me") as me:
        assert (me.role, me.signed_in, me.decider) == ("maintainer", False, "me")
        assert me.lifecycle("challenge", [info.reflection_ids[0]], "why").changed
    with _as(root, "alice", "reviewer") as alice:
        assert (alice.role, alice.signed_in, alice.decider) == ("reviewer", True, "alice")
