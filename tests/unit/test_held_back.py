"""Held-back drafts (issue 29, item 1): report, the lane, verdicts and their exact undo,
through the session on demo brains."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_cli import agent_db, dump, sql, user_db

from brainview.config import Config, HeldBackConfig
from brainview.core.held_back import sampled, why_shown
from brainview.demo.generator import DEMO_NOW
from brainview.errors import ConflictError, InvalidInputError, NotFoundError, RoleRefusedError
from brainview.services.session import Session
from brainview.store.discovery import discover


def live(root: Path) -> tuple[list[str], list[str]]:
    users = sql(user_db(root), "SELECT id FROM neuron WHERE retired_at IS NULL ORDER BY id")
    refl = sql(
        agent_db(root),
        "SELECT id FROM neuron WHERE type = 'reflection' AND retired_at IS NULL ORDER BY id",
    )
    return [u for (u,) in users], [r for (r,) in refl]


def report(hid: str, neuron: str, lessons: list[Any], **more: Any) -> dict[str, Any]:
    draft = {"id": "draft-1", "kind": "note", "params": {"neurons": [neuron]},
             "rationale": "worth a quiz"}  # fmt: skip
    return {"id": hid, "action": "withdrawn", "draft": draft, "lessons": lessons, **more}


def session(root: Path, *, cfg: Config | None = None, **kw: Any) -> Session:
    return Session(paths=discover(root), config=cfg or Config(), clock=lambda: DEMO_NOW, **kw)


def grades(root: Path, decision_id: str) -> dict[str, int]:
    rows = sql(
        agent_db(root), "SELECT neuron_id, grade FROM spike WHERE session_id = ?", decision_id
    )
    return dict(rows)  # type: ignore[arg-type]


def test_report_is_append_only_idempotent_and_listed_in_the_lane(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    users, refl = live(root)
    raw = report("hb-1", users[0], [refl[0], {"reflection": refl[1], "stance": "support"}],
                 reason="lesson warned")  # fmt: skip
    with session(root) as s:
        got = s.report_held_back(raw, runtime="curator-x")
        assert got["already_reported"] is False and got["runtime"] == "curator-x"
        assert s.report_held_back(raw)["already_reported"] is True
        with pytest.raises(ConflictError, match="different action"):
            s.report_held_back({**raw, "action": "rewritten"})
        (item,) = s.held_back_lane()
    assert item.id == "hb-1" and item.why is not None and "weakly corroborated" in item.why
    assert [(x.id, x.stance) for x in item.opposing] == [(refl[0], "oppose")]
    assert item.summary and item.verdict is None
    assert sql(agent_db(root), "SELECT action, runtime, kind FROM brainview_held_back") == [
        ("withdrawn", "curator-x", "note")
    ]


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda r: {**r, "action": "dropped"}, "held_back.action"),
        (lambda r: {**r, "lessons": []}, "held_back.lessons"),
        (lambda r: {**r, "lessons": [{"reflection": "r-x", "stance": "support"}]},
         "held_back.lessons"),
        (lambda r: {**r, "lessons": ["r-does-not-exist"]}, "held_back.lessons[0].reflection"),
        (lambda r: {**r, "draft": {**r["draft"], "kind": "nope"}}, "held_back.draft.kind"),
        (lambda r: {**r, "reason": "bad \x1b]52;c;aGk=\x07"}, "held_back.reason"),
        (lambda r: {**r, "draft": {**r["draft"], "rationale": "x\x1b[31m"}},
         "held_back.draft.rationale"),
        (lambda r: {**r, "recall": "rc-never"}, "held_back.recall"),
        (lambda r: {**r, "bogus": 1}, "held_back.bogus"),
    ],
)  # fmt: skip
def test_bad_reports_name_the_field_and_write_nothing(demo, mutate, field: str) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    users, refl = live(root)
    before = dump(agent_db(root), skip=set())
    with session(root) as s, pytest.raises(InvalidInputError, match=f"^{field.replace('[', '.')}"):
        s.report_held_back(mutate(report("hb-bad", users[0], [refl[0]])))
    assert dump(agent_db(root), skip=set()) == before


def test_should_have_proposed_queues_grades_miss_and_undoes_exactly(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    users, refl = live(root)
    raw = report("hb-2", users[1], [refl[2], {"reflection": refl[3], "stance": "support"}])
    raw["draft"]["consulted"] = [{"reflection": refl[2], "stance": "oppose"}]
    with session(root) as s:
        s.report_held_back(raw)
        before = (dump(agent_db(root), skip=set()), dump(user_db(root), skip=set()))
        got = s.decide_held_back("hb-2", "should-have-proposed", "a fine draft")
        assert got["proposal_id"] == "p-hb-2"
        assert grades(root, got["decision_id"]) == {refl[2]: 1, refl[3]: 4}
        status = sql(agent_db(root), "SELECT status, source, n_consulted FROM brainview_proposal "
                                     "WHERE id = 'p-hb-2'")  # fmt: skip
        assert status == [("pending", "held-back", 0)]  # the graded lesson is not consulted again
        assert s.held_back_lane() == []  # decided: out of the lane
        with pytest.raises(ConflictError, match="already decided"):
            s.decide_held_back("hb-2", "rightly_held_back")
        undone = s.undo_held_back("hb-2")
        assert undone["decision_id"] == got["decision_id"] and undone["rows_restored"] > 0
    after = (dump(agent_db(root), skip=set()), dump(user_db(root), skip=set()))
    changed = {t for t in before[0] if before[0][t] != after[0].get(t)}
    # the lesson the verdict wrote is gone; Spikuit's change log only grows (its add, then
    # the undo's delete)
    assert changed <= {"brainview_held_back_verdict", "brainview_effect", "sqlite_sequence",
                       "changeset", "event"}  # fmt: skip
    assert all(before[0][t] == after[0][t] for t in ("neuron", "synapse", "spike"))
    assert before[1] == after[1]
    ops = [o for (o,) in sql(agent_db(root), "SELECT op FROM event ORDER BY rowid DESC LIMIT 20")]
    assert "neuron.delete" in ops and "neuron.add" in ops
    (row,) = sql(agent_db(root), "SELECT undone_at, undone_by FROM brainview_held_back_verdict")
    assert row[0] is not None


def test_rightly_held_back_grades_strong_and_corroborates(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    users, refl = live(root)
    cfg = Config(held_back=HeldBackConfig(min_confirmations=1, sample_rate=0.0))
    with session(root, cfg=cfg, decider="ann") as s:
        s.report_held_back(report("hb-3", users[2], [refl[4]]))
        s.report_held_back(report("hb-4", users[3], [refl[4]]))
        got = s.decide_held_back("hb-3", "rightly_held_back")
        assert grades(root, got["decision_id"]) == {refl[4]: 4}
        # one confirmation now meets min_confirmations=1: hb-4 leaves the lane
        assert [i.id for i in s.held_back_lane()] == []
        listed = {i.id: i for i in s.held_back_lane(everything=True)}
        assert listed["hb-3"].verdict is not None and listed["hb-4"].why is None
        assert listed["hb-4"].opposing[0].deciders == ("ann",)


def test_draft_that_cannot_be_queued_is_refused_naming_the_field(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    users, refl = live(root)
    with session(root) as s:
        s.report_held_back(report("hb-5", "n-gone-since", [refl[5]]))
        before = dump(agent_db(root), skip=set())
        with pytest.raises(InvalidInputError, match=r"^held_back\.draft\.params: user neuron"):
            s.decide_held_back("hb-5", "should_have_proposed")
        assert dump(agent_db(root), skip=set()) == before
        with pytest.raises(NotFoundError):
            s.decide_held_back("hb-none", "rightly_held_back")
        with pytest.raises(InvalidInputError, match="^verdict"):
            s.decide_held_back("hb-5", "maybe")


def test_undo_refused_when_the_queued_proposal_was_decided_and_roles_hold(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    users, refl = live(root)
    with session(root, decider="curator-model-a") as curator:  # the draft's author
        curator.report_held_back(report("hb-6", users[4], [refl[6]]))
    with session(root, decider="ann") as s:  # no one decides what they proposed
        s.decide_held_back("hb-6", "should_have_proposed")
        s.decide(["p-hb-6"], "reject", reason="no after all")
        with pytest.raises(ConflictError, match="changed since"):
            s.undo_held_back("hb-6")
        s.undo(None)
    viewer = session(root, decider="vic", role="viewer")
    with viewer, pytest.raises(RoleRefusedError, match="reporting held-back drafts"):
        viewer.report_held_back(report("hb-7", users[4], [refl[6]]))
    other = session(root, decider="bob", role="reviewer")
    with other, pytest.raises(RoleRefusedError, match="someone else"):
        other.undo_held_back("hb-6")


def test_the_lane_sample_is_seeded_per_id() -> None:
    ids = [f"hb-{i}" for i in range(2000)]
    picked = [i for i in ids if sampled(i, 0.1, 7)]
    assert picked == [i for i in ids if sampled(i, 0.1, 7)]
    assert 150 < len(picked) < 250
    assert not any(sampled(i, 0.0, 7) for i in ids) and all(sampled(i, 1.0, 7) for i in ids)
    assert (
        why_shown("hb-x", ["r-1"], {"r-1": 2}, min_confirmations=2, sample_rate=0.0, seed=0) is None
    )
    said = why_shown("hb-x", ["r-1"], {"r-1": 1}, min_confirmations=2, sample_rate=0.0, seed=0)
    assert said == "weakly corroborated: r-1 1 confirmation(s), fewer than 2"


def test_a_verdicts_grades_are_read_back_as_brainviews_in_history_and_curves(demo) -> None:  # type: ignore[no-untyped-def]
    """A held-back verdict has no ``brainview_decision`` row: the reflection's grade
    history names it (not "outside brainview") and the communities' standing counts
    include it, until it is undone."""
    from brainview.services.audit.grades import live_grades
    from brainview.services.project import Project
    from brainview.store import bv_schema_communities as reads

    root, _ = demo
    users, refl = live(root)
    with session(root, decider="ann") as s:
        s.report_held_back(report("hb-9", users[2], [refl[6]]))
        got = s.decide_held_back("hb-9", "rightly_held_back")
    with Project.open(discover(root)) as p, p.require_agent().read() as conn:
        mine = [g for g in live_grades(conn, refl[6]) if g.decision_id == got["decision_id"]]
        counts = {r: (st, mi) for r, st, mi in reads.standing_grade_counts(conn)}
    assert [(g.via, g.proposal_kind, g.verdict, g.decider) for g in mine] == [
        ("brainview", "held_back", "rightly_held_back", "ann")
    ]
    assert counts[refl[6]][0] >= 1
