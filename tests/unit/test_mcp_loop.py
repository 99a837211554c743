"""The whole agent half of the loop through a real MCP client: a curator recalls, proposes
with the recall id, the maintainer decides in the console, the curator reads the decision
and its grades back; a tutor reports an outcome, and undoing it in the console is seen.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from mcp import ClientSession
from test_cli import agent_db, sql
from test_mcp import data, error, live_ids, session_run

from brainview.core.refs import parse_refs
from brainview.demo.generator import DEMO_NOW
from brainview.services import review
from brainview.services.outcome import undo_outcome
from brainview.services.project import Project
from brainview.store.discovery import discover


def _lesson_and_neurons(root: Any, info: Any) -> tuple[str, list[str]]:
    rid = info.themes["keyword overlap"][0]
    content = sql(agent_db(root), "SELECT content FROM neuron WHERE id = ?", rid)[0][0]
    return rid, parse_refs(content)[:2]


def test_recall_propose_decide_read_back(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    lesson, (a, b) = _lesson_and_neurons(root, info)
    paths = discover(root)
    later = DEMO_NOW + timedelta(minutes=5)
    draft = {
        "id": "prop-mcp-loop",
        "kind": "merge_neurons",
        "params": {"keep": a, "merge": [b]},
        "rationale": "same keywords, looks like a duplicate",
    }
    seen: dict[str, Any] = {}

    async def curator(s: ClientSession) -> None:
        got = data(await s.call_tool("recall", {"draft": draft, "skill": "curator"}))
        assert got["recall_id"].startswith("rc-")
        top = got["hits"][0]
        assert top["reflection"] == lesson and top["stance"] == "oppose"
        assert set(top["components"]["refs_direct"]) == {a, b}
        # the curator ignores the warning, cites the lesson as opposing, proposes anyway
        consulted = [{"reflection": top["reflection"], "stance": top["stance"]}]
        queued = data(await s.call_tool("propose", {
            "proposals": dict(draft, consulted=consulted), "recall_id": got["recall_id"],
        }))  # fmt: skip
        assert queued["proposals"][0]["retrieved"] == len(got["hits"]) - 1
        seen.update(recall=got)
        bad, _err = error(await s.call_tool("recall", {"text": "x", "limit": 0}))
        assert bad.startswith("usage:")

    session_run(root, curator)
    query = (
        "SELECT reflection_id FROM brainview_consult WHERE proposal_id = 'prop-mcp-loop' "
        "AND role = 'retrieved' ORDER BY seq"
    )
    retrieved = sql(agent_db(root), query)
    assert [r for (r,) in retrieved] == [h["reflection"] for h in seen["recall"]["hits"][1:]]

    with Project.open(paths, write_agent=True) as project:  # the maintainer rejects it
        result = review.decide_many(
            project, ["prop-mcp-loop"], "reject", reason="keep both: they differ",
            decider="alice", seconds_on_screen=9.0, now=later, applier=None,
        )[0]  # fmt: skip

    async def read_back(s: ClientSession) -> None:
        feed = data(await s.call_tool("decisions_since", {"since": "1h"}))
        mine = [d for d in feed["decisions"] if d["proposal_id"] == "prop-mcp-loop"]
        assert mine and mine[0]["verdict"] == "reject" and mine[0]["decider"] == "alice"
        assert [(g["reflection"], g["grade_name"]) for g in mine[0]["grades"]] == [
            (lesson, "strong")
        ]  # oppose + reject: the warning was right
        assert mine[0]["new_reflection_id"] == result.new_reflection_id
        # the new lesson is recalled for the same draft next time
        again = data(await s.call_tool("recall", {"draft": draft}))
        assert result.new_reflection_id in {h["reflection"] for h in again["hits"][:5]}

    session_run(root, read_back)


def test_tutor_outcome_over_mcp_and_undo(demo) -> None:  # type: ignore[no-untyped-def]
    root, _info = demo
    _users, refl = live_ids(root)
    outcome = {
        "id": "out-mcp-1",
        "skill": "tutor",
        "result": "failure",
        "situation": "the hint about cadences confused the learner",
        "consulted": [{"reflection": refl[0], "stance": "support"}],
    }
    spikes = sql(agent_db(root), "SELECT count(*) FROM spike")[0][0]

    async def tutor(s: ClientSession) -> None:
        done = data(await s.call_tool("report_outcome", {"outcome": outcome}))
        assert done["already_recorded"] is False and done["lesson_id"]
        assert [(g["reflection"], g["grade_name"]) for g in done["grades"]] == [(refl[0], "miss")]
        twice = data(await s.call_tool("report_outcome", {"outcome": outcome}))
        assert twice["already_recorded"] is True
        clash, err = error(await s.call_tool(
            "report_outcome", {"outcome": dict(outcome, result="success")}
        ))  # fmt: skip
        assert clash.startswith("conflict:") and err["exit_code"] == 5

    session_run(root, tutor)
    assert sql(agent_db(root), "SELECT count(*) FROM spike")[0][0] == spikes + 1
    with Project.open(discover(root), write_agent=True) as project:
        undo_outcome(project, "out-mcp-1", now=DEMO_NOW + timedelta(hours=1), actor="alice")
    assert sql(agent_db(root), "SELECT count(*) FROM spike")[0][0] == spikes
