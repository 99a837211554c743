"""The two-person rule at the Session door: holds, second accepts, withdrawals, undo,
invalidations, agreement — each face passes here, so each obeys it."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from test_cli import agent_db, cli, dump, fresh, user_db

from brainview.config import Config, TwoPersonConfig
from brainview.core.identity import Identity
from brainview.demo.generator import DEMO_NOW
from brainview.errors import ConflictError, NotFoundError, RefusedError
from brainview.services.session import Session
from brainview.store.discovery import discover


def _kind(root: Path, pid: str) -> str:
    conn = sqlite3.connect(agent_db(root))
    try:
        return str(
            conn.execute("SELECT kind FROM brainview_proposal WHERE id = ?", (pid,)).fetchone()[0]
        )
    finally:
        conn.close()


def _status(root: Path, pid: str) -> str:
    conn = sqlite3.connect(agent_db(root))
    try:
        return str(
            conn.execute("SELECT status FROM brainview_proposal WHERE id = ?", (pid,)).fetchone()[0]
        )
    finally:
        conn.close()


def _approvals(root: Path) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(agent_db(root))
    try:
        return conn.execute(
            "SELECT event, verdict, actor, subject, ref FROM brainview_approval ORDER BY rowid"
        ).fetchall()
    finally:
        conn.close()


def _session(
    root: Path, name: str, rules: list[str], role: str = "maintainer", **kw: Any
) -> Session:
    cfg = Config(two_person=TwoPersonConfig(enabled=True, rules=rules, **kw))
    return Session.start(
        discover(root),
        config=cfg,
        clock=lambda: DEMO_NOW,
        identity=Identity(name, role),  # type: ignore[arg-type]
    )


def test_first_accept_holds_second_persons_accept_applies_and_undo_is_exact(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    pid = fresh(info)[0]
    rules = [_kind(root, pid)]
    before_user = dump(user_db(root), skip=set())
    user_log = {"changeset", "event"}
    with _session(root, "ada", rules) as ada, _session(root, "bob", rules, "reviewer") as bob:
        held = ada.decide([pid], "accept")
        assert [r.apply_state for r in held] == ["held"]
        assert _status(root, pid) == "pending"
        assert dump(user_db(root), skip=set()) == before_user
        assert [a.subject for a in bob.open_approvals()] == [pid]
        assert "½ accepted by ada" in bob.approvals_for([pid])[pid].line
        with pytest.raises(RefusedError, match="ada already accepted"):
            ada.decide([pid], "accept")
        log = {
            "brainview_decision",
            "brainview_effect",
            "brainview_apply_intent",
            "changeset",
            "event",
            "brainview_meta",
            "brainview_proposal",
        }  # (its version counter grows)
        pending_again = dump(agent_db(root), skip=log)
        done = bob.decide([pid], "accept")
        assert done[0].apply_state != "held" and _status(root, pid) == "accepted"
        assert bob.open_approvals() == []
        agreement = bob.agreement()
        assert agreement["overall"]["items"] == 1 and agreement["overall"]["agreed"] == 1
        bob.undo(done[0].decision_id)
        # exact: the agent brain as it was with ada's approval standing (the audit
        # rows only grow), the user brain as before
        assert dump(agent_db(root), skip=log) == pending_again
        assert dump(user_db(root), skip=user_log) == {
            k: v for k, v in before_user.items() if k not in user_log
        }
        assert _status(root, pid) == "pending"
        assert [a.actor for a in bob.open_approvals()] == ["ada"]
        assert bob.agreement()["overall"]["items"] == 0


def test_a_withdrawn_approval_means_one_accept_holds_again(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    pid = fresh(info)[0]
    rules = [_kind(root, pid)]
    with _session(root, "ada", rules) as ada, _session(root, "bob", rules) as bob:
        ada.decide([pid], "accept")
        out = bob.withdraw_approval(pid)
        assert out["voted_by"] == "ada" and out["withdrawn_by"] == "bob"
        assert bob.open_approvals() == []
        held = bob.decide([pid], "accept")  # bob is now the first
        assert held[0].apply_state == "held" and _status(root, pid) == "pending"
        with pytest.raises(NotFoundError):
            ada.withdraw_approval("nothing-here")
    events = [e[0] for e in _approvals(root)]
    assert events == ["vote", "withdraw", "vote"]  # append-only


def test_withdrawn_between_plan_and_commit_refuses_the_second_accept(demo, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    pid = fresh(info)[0]
    rules = [_kind(root, pid)]
    with _session(root, "ada", rules) as ada, _session(root, "bob", rules) as bob:
        ada.decide([pid], "accept")
        from brainview.services.review import approvals

        real = approvals.plan

        def plan_then_withdraw(*a: Any, **k: Any) -> Any:
            found = real(*a, **k)
            ada.withdraw_approval(pid)  # lands after bob's read, before his write
            return found

        monkeypatch.setattr(approvals, "plan", plan_then_withdraw)
        before = dump(agent_db(root), skip={"brainview_approval"})
        with pytest.raises(ConflictError, match="withdrawn meanwhile"):
            bob.decide([pid], "accept")
        assert dump(agent_db(root), skip={"brainview_approval"}) == before
        assert _status(root, pid) == "pending"


def test_rule_off_by_default_without_a_users_file(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    pid = fresh(info)[0]
    session = Session.start(discover(root), config=Config(), clock=lambda: DEMO_NOW, decider="ada")
    with session:
        assert not session.two_person_rules().enabled
        assert session.decide([pid], "accept")[0].apply_state != "held"


def test_rule_on_by_default_with_two_people_in_the_users_file(demo) -> None:  # type: ignore[no-untyped-def]
    root, _info = demo
    users = root / ".spikuit" / "brainview-users.json"
    users.write_text('{"version": 1, "users": {"ada": {"role": "maintainer"}}}')
    session = Session.start(discover(root), config=Config(), clock=lambda: DEMO_NOW, decider="ada")
    assert not session.two_person_rules().enabled
    users.write_text(
        '{"version": 1, "users": {"ada": {"role": "maintainer"}, "bob": {"role": "reviewer"}}}'
    )
    assert session.two_person_rules().enabled


def test_a_reject_is_final_and_a_sampled_item_holds_it(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    a, b = fresh(info)[:2]
    rules = [_kind(root, a)]
    with _session(root, "ada", rules) as ada:
        assert ada.decide([a], "reject")[0].apply_state != "held"
    with (
        _session(root, "ada", ["policy"], agreement_sample=1.0) as ada,
        _session(root, "bob", ["policy"], agreement_sample=1.0) as bob,
    ):
        assert ada.decide([b], "reject")[0].apply_state == "held"
        assert bob.decide([b], "accept")[0].verdict == "accept"
        assert _status(root, b) == "accepted"
        fig = bob.agreement()["by_kind"][_kind(root, b)]
        assert fig["items"] == 1 and fig["agreed"] == 0


def _reflections(root: Path, n: int = 2) -> list[str]:
    conn = sqlite3.connect(agent_db(root))
    try:
        rows = conn.execute(
            "SELECT id FROM neuron WHERE retired_at IS NULL AND type != 'policy' "
            "ORDER BY id LIMIT ?",
            (n,),
        ).fetchall()
    finally:
        conn.close()
    return [r for (r,) in rows]


def _retired(root: Path, ids: list[str]) -> list[bool]:
    conn = sqlite3.connect(agent_db(root))
    try:
        return [
            conn.execute("SELECT retired_at FROM neuron WHERE id = ?", (r,)).fetchone()[0]
            is not None
            for r in ids
        ]
    finally:
        conn.close()


def test_invalidation_needs_a_second_maintainer_and_undo_reopens_it(demo) -> None:  # type: ignore[no-untyped-def]
    root, _info = demo
    refl = _reflections(root)
    with _session(root, "ada", ["invalidate"]) as ada, _session(root, "bob", ["invalidate"]) as bob:
        held = ada.lifecycle("invalidate", refl, "poisoned")
        assert held.changed == [] and "held" in held.unchanged[0][1]
        assert _retired(root, refl) == [False, False]
        with pytest.raises(RefusedError, match="already approved"):
            ada.lifecycle("invalidate", list(reversed(refl)), "again")
        done = bob.lifecycle("invalidate", list(reversed(refl)), "agreed")
        assert len(done.changed) == 2 and _retired(root, refl) == [True, True]
        assert bob.open_approvals() == []
        assert bob.agreement()["by_kind"]["invalidate"]["items"] == 1
        bob.undo_lifecycle(done.batch_id)
        assert _retired(root, refl) == [False, False]
        assert [a.actor for a in bob.open_approvals()] == ["ada"]
        # the challenge verb is untouched by the rule
        assert ada.lifecycle("challenge", refl[:1], "odd").changed


def test_the_cli_shows_and_withdraws_an_open_approval(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    pid = fresh(info)[0]
    (root / ".spikuit" / "brainview.toml").write_text(
        f'[two_person]\nenabled = true\nrules = ["{_kind(root, pid)}"]\n'
    )
    out = cli("proposals", "accept", pid, "-C", str(root), "--decider", "ada")
    assert out.returncode == 0, out.stderr
    assert "needs a second person" in out.stdout
    assert _status(root, pid) == "pending"
    out = cli("proposals", "approvals", "-C", str(root), "--json")
    assert out.returncode == 0, out.stderr
    assert '"voted_by": "ada"' in out.stdout
    again = cli("proposals", "accept", pid, "-C", str(root), "--decider", "ada")
    assert again.returncode == 11 and "already accepted" in again.stderr
    out = cli("proposals", "withdraw", pid, "-C", str(root), "--decider", "bob")
    assert out.returncode == 0, out.stderr
    assert "withdrew ada's approval" in out.stdout


def test_stats_json_reports_waiting_approvals_and_agreement(demo) -> None:  # type: ignore[no-untyped-def]
    import json

    root, info = demo
    a, b = fresh(info)[:2]
    kinds = sorted({_kind(root, a), _kind(root, b)})
    (root / ".spikuit" / "brainview.toml").write_text(
        f"[two_person]\nenabled = true\nrules = {json.dumps(kinds)}\n"
    )
    for argv in (
        ("accept", a, "--decider", "ada"),
        ("accept", b, "--decider", "ada"),
        ("accept", a, "--decider", "bob"),
        ("reject", b, "--decider", "bob"),
    ):
        out = cli("proposals", *argv, "-C", str(root))
        assert out.returncode == 0, out.stderr
    out = cli("stats", str(root), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["two_person"]["enabled"] and data["two_person"]["waiting"] == 0
    overall = data["agreement"]["overall"]
    # ada accepted both; bob accepted one, rejected one: 1 of 2 agreed, κ 0 (ada never varies)
    assert overall["items"] == 2 and overall["agreed"] == 1 and overall["value"] == 0.0
    assert set(data["agreement"]["by_person"]) == {"ada", "bob"}
    text = cli("stats", str(root))
    assert "agreement: 1 of 2 agreed, κ 0.00 (ada, bob)" in text.stdout


def test_planner_queued_proposals_are_authored_by_the_planner_not_a_person(demo) -> None:  # type: ignore[no-untyped-def]
    from brainview.services.consolidate.api import plan
    from brainview.services.consolidate.planner import PLANNER

    root, _info = demo
    with _session(root, "ada", ["policy"]) as ada:
        with ada.project() as project:
            the_plan = plan(project, now=DEMO_NOW, in_process=True)
        ids = ada.queue_consolidation(the_plan)
    assert ids
    conn = sqlite3.connect(agent_db(root))
    try:
        marks = ",".join("?" * len(ids))
        runtimes = {
            r
            for (r,) in conn.execute(
                f"SELECT runtime FROM brainview_proposal WHERE id IN ({marks})", ids
            )
        }
    finally:
        conn.close()
    assert runtimes == {PLANNER}  # so the maintainer who queued them may decide them


def test_an_unknown_rule_is_one_config_line(tmp_path: Path) -> None:
    from brainview.config import parse
    from brainview.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown rule 'polcy'"):
        parse('[two_person]\nrules = ["polcy"]\n', tmp_path / "brainview.toml")
    cfg = parse('[two_person]\nrules = ["merge_neurons"]\nprune_above = 3\n', tmp_path / "b")
    assert cfg.two_person.rules == ["merge_neurons"] and cfg.two_person.prune_above == 3


def test_prunes_above_n_in_one_decision_need_two_people(demo) -> None:  # type: ignore[no-untyped-def]
    from brainview.services.consolidate.api import plan

    root, _info = demo
    with (
        _session(root, "ada", ["prune"], prune_above=1) as ada,
        _session(root, "bob", ["prune"], prune_above=1) as bob,
    ):
        with ada.project() as project:
            the_plan = plan(project, now=DEMO_NOW, in_process=True)
        ids = ada.queue_consolidation(the_plan)
        prunes = [p for p in ids if _kind(root, p) == "prune_reflection"]
        assert len(prunes) >= 3, "the demo's consolidation plans prunes"
        assert ada.decide(prunes[:1], "accept")[0].apply_state != "held"  # one: not above 1
        held = ada.decide(prunes[1:3], "accept")  # two in one decision: above 1
        assert [r.apply_state for r in held] == ["held", "held"]
        assert {_status(root, p) for p in prunes[1:3]} == {"pending"}
        done = bob.decide(prunes[1:3], "accept")
        assert [r.apply_state for r in done] == ["agent", "agent"]
        assert {_status(root, p) for p in prunes[1:3]} == {"accepted"}


def test_a_policy_needs_two_and_only_the_second_may_edit_its_text(demo) -> None:  # type: ignore[no-untyped-def]
    from brainview.errors import InvalidInputError
    from brainview.services.consolidate.api import plan

    root, _info = demo
    with _session(root, "ada", ["policy"]) as ada, _session(root, "bob", ["policy"]) as bob:
        with ada.project() as project:
            the_plan = plan(project, now=DEMO_NOW, in_process=True)
        ids = ada.queue_consolidation(the_plan)
        policies = [p for p in ids if _kind(root, p) == "summarize_community"]
        assert policies, "the demo's consolidation plans a policy"
        pid = policies[0]
        before = dump(agent_db(root), skip=set())
        with pytest.raises(InvalidInputError, match="needs two people"):
            ada.decide([pid], "accept", policy_text="ada's own words")
        assert dump(agent_db(root), skip=set()) == before
        assert ada.decide([pid], "accept")[0].apply_state == "held"
        done = bob.decide([pid], "accept", policy_text="bob's edited policy text")
        assert done[0].apply_state == "agent" and _status(root, pid) == "accepted"
