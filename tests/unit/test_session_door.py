"""The Session is the one door for actions: each method writes what the service it
wraps writes, as the session's decider, at the session's clock."""

from __future__ import annotations

from pathlib import Path

import pytest

from brainview.core.outcomes import OutcomeReport
from brainview.demo.generator import DEMO_NOW, DemoInfo
from brainview.errors import ConflictError, NotFoundError
from brainview.services import lifecycle
from brainview.services.lifecycle.blast import BlastAction
from brainview.services.session import Session, curator_session
from brainview.store.discovery import discover


def _session(root: Path, decider: str = "tester") -> Session:
    return Session.start(discover(root), clock=lambda: DEMO_NOW, decider=decider)


def test_lifecycle_batch_and_its_undo_as_the_decider(demo: tuple[Path, DemoInfo]) -> None:
    root, info = demo
    rid = info.reflection_ids[0]
    with _session(root) as session:
        done = session.lifecycle("challenge", [rid], reason="looks wrong")
        assert done.changed == [(rid, "live", "challenged")]
        with session.project() as project:
            status = lifecycle.status_of(project, rid)
        assert (status.state, status.actor) == ("challenged", "tester")
        undone = session.undo_lifecycle()  # None: the last batch
        assert undone.batch_id == done.batch_id and undone.reflections == [rid]
        with session.project() as project:
            assert lifecycle.status_of(project, rid).state == "live"


def test_blast_action_flags_and_undoes_as_one_batch(demo: tuple[Path, DemoInfo]) -> None:
    root, info = demo
    rid = info.reflection_ids[1]
    with _session(root) as session:
        done = session.blast(BlastAction("challenge", (rid,), (), "bad advice"))
        assert [c[0] for c in done.changed] == [rid]
        assert session.undo_lifecycle(done.batch_id).undo_batch_id.startswith("lcb-")


def test_writing_switch_round_trip(demo: tuple[Path, DemoInfo]) -> None:
    root, _info = demo
    with _session(root) as session:
        assert not session.writing().paused
        state, changed = session.set_writing(False, "noisy week")
        assert changed and state.paused and state.by == "tester" and state.reason == "noisy week"
        assert session.set_writing(False)[1] is False  # already paused: nothing changes
        assert session.set_writing(True) == (session.writing(), True)
        assert not session.writing().paused


def test_decide_then_undo_by_proposal_id(demo: tuple[Path, DemoInfo]) -> None:
    root, info = demo
    pid = info.proposal_ids[0]
    with _session(root) as session:
        rows, total = session.queue_page()
        assert pid in [r.id for r in rows] and total >= len(rows)
        assert session.detail(pid).status == "pending"
        [result] = session.decide([pid], "reject", reason="not now")
        last = session.last_unit()
        assert last is not None and last.decision_id == result.decision_id
        target = session.undo_target(pid)  # a decided proposal id names its decision
        assert target.decision["id"] == result.decision_id and not target.applied
        [undone] = session.undo_named(target)
        assert undone.proposal_id == pid
        assert session.detail(pid).status == "pending"
        with pytest.raises(ConflictError, match="already undone"):
            session.undo_target(pid)


def test_dismiss_records_the_decider(demo: tuple[Path, DemoInfo]) -> None:
    root, info = demo
    pid = info.proposal_ids[1]
    with _session(root, decider="someone") as session:
        result = session.dismiss(pid)
        assert result.verdict == "dismiss"
        assert session.undo_target(None).decision["decider"] == "someone"


def test_undo_target_of_nothing_is_not_found(demo: tuple[Path, DemoInfo]) -> None:
    root, _info = demo
    with _session(root) as session, pytest.raises(NotFoundError):
        session.undo_target("no-such-decision")


def test_curator_session_reports_and_undoes_an_outcome(demo: tuple[Path, DemoInfo]) -> None:
    root, info = demo
    report = OutcomeReport(
        "out-door-1", "qabot", "success", "answered", [(info.reflection_ids[2], "support", None)]
    )
    with curator_session(discover(root), runtime="qabot-runtime", now=DEMO_NOW) as session:
        done = session.report_outcome(report)
        assert done.grades and not done.already_recorded
        again = session.report_outcome(report)
        assert again.already_recorded
        assert session.undo_outcome("out-door-1").proposal_id == "out-door-1"
