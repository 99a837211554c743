"""A proposal flagged between the console's question and the write is not accepted
unasked: the check runs again inside the decision's own transaction."""

from __future__ import annotations

import sqlite3

import pytest

from brainview.demo.generator import DEMO_NOW
from brainview.errors import ConflictError
from brainview.services import lifecycle, review
from brainview.services.project import Project
from brainview.store.discovery import discover
from tests.pilot.test_triage_truth import _rows, _supported


def test_flagged_since_the_question_is_refused_inside_the_transaction(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    pid, rid = _supported(root, info.stale_proposal_ids)
    with Project.open(discover(root), write_agent=True) as p:
        # the maintainer saw nothing flagged and pressed a (confirmed: nothing) …
        lifecycle.invalidate(p, [rid], reason="planted", actor="other", now=DEMO_NOW)
        # … while another process invalidated a lesson the proposal leans on
        with pytest.raises(ConflictError, match="flagged just now"):
            review.decide_many(
                p, [pid], "accept", decider="t", now=DEMO_NOW, confirmed_flags=frozenset()
            )
        assert _rows(root, "SELECT status FROM brainview_proposal WHERE id=?", pid) == [
            ("pending",)
        ]
        assert _rows(root, "SELECT COUNT(*) FROM brainview_decision") == [(0,)]
        # once the maintainer confirmed this proposal, it goes through
        done = review.decide_many(
            p, [pid], "accept", decider="t", now=DEMO_NOW, confirmed_flags=frozenset({pid})
        )
    assert [r.proposal_id for r in done] == [pid]
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    graded = {r for (r,) in conn.execute("SELECT reflection_id FROM brainview_grade")}
    conn.close()
    assert rid not in graded  # the invalidated lesson is still never graded
