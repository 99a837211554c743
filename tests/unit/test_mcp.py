"""``brainview mcp``: the MCP SDK's own stdio client drives a real ``python -m
brainview.cli mcp PROJECT`` process — what an agent runtime does — on demo brains.

A curator lists the tools and resources, proposes (dry run, then queue), and reads back
through ``decisions_since`` what a maintainer decided in the console (decided here
through :mod:`brainview.services.review`, as the triage screen does), with the grades it
fired; errors are tool errors carrying the CLI's kind and message; the read tools and a
dry run change no row and leave no file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult, Implementation
from test_cli import ENV, agent_db, cli, sql, user_db

from brainview.demo.generator import DEMO_NOW, DemoSpec
from brainview.services import apply, lifecycle, review
from brainview.services.project import Project
from brainview.store.discovery import discover
from tests.read_only_helpers import assert_read_only

ROOT = Path(__file__).resolve().parents[2]
CLIENT = Implementation(name="curator-test", version="1.0")
TOOLS = {
    "recall", "propose", "decisions_since", "inspect_reflection", "report_outcome",
    "report_held_back", "queue_health", "approvals",
}  # fmt: skip
READ_ONLY_TOOLS = {"decisions_since", "inspect_reflection", "queue_health", "approvals"}
GUIDE_URI = "brainview://docs/curator.md"
SCHEMA_URI = "brainview://schema/proposal.schema.json"


@asynccontextmanager
async def connect(
    root: Path, *args: str, errlog: Path | None = None
) -> AsyncIterator[ClientSession]:
    """An initialised client session with ``brainview mcp ROOT ARGS`` (a real process)."""
    env = {**ENV, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": os.environ["XDG_CACHE_HOME"]}
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "brainview.cli", "mcp", str(root), *args],
        env=env,
        cwd=str(ROOT),
    )
    log = errlog or root.parent / "mcp-stderr.log"
    with log.open("a", encoding="utf-8") as err:
        async with (
            stdio_client(server, errlog=err) as (read, write),
            ClientSession(read, write, client_info=CLIENT) as session,
        ):
            await session.initialize()
            yield session
    assert "Traceback" not in log.read_text(encoding="utf-8")


def session_run(root: Path, body: Callable[[ClientSession], Awaitable[Any]], *args: str) -> Any:
    """Run ``body`` against a fresh server on ``root``; its return value."""

    async def main() -> Any:
        async with connect(root, *args) as session:
            return await body(session)

    return anyio.run(main)


def data(result: CallToolResult) -> dict[str, Any]:
    """A successful tool result's JSON object (structured content = the text)."""
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]
    return result.structured_content  # type: ignore[no-any-return]


def error(result: CallToolResult) -> tuple[str, dict[str, Any]]:
    """A tool error's text and its ``{"error", "message", "exit_code"}`` object."""
    assert result.is_error
    return result.content[0].text, result.structured_content  # type: ignore[union-attr,return-value]


def live_ids(root: Path) -> tuple[list[str], list[str]]:
    """Live user neurons and live reflections of a demo project."""
    users = sql(user_db(root), "SELECT id FROM neuron WHERE retired_at IS NULL ORDER BY id")
    refl = sql(
        agent_db(root),
        "SELECT id FROM neuron WHERE type = 'reflection' AND retired_at IS NULL ORDER BY id",
    )
    return [u[0] for u in users], [r[0] for r in refl]


def note(pid: str, neuron: str, consulted: list[dict[str, str]]) -> dict[str, Any]:
    return {
        "id": pid,
        "kind": "note",
        "params": {"neurons": [neuron]},
        "rationale": "The user confuses these two ideas; a quiz would help.",
        "consulted": consulted,
    }


def write_json(path: Path, value: object) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


# -- discovery, propose ------------------------------------------------------------------


def test_tools_resources_and_propose(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    users, refl = live_ids(root)
    one = note("prop-mcp-1", users[0], [{"reflection": refl[0], "stance": "support"}])
    cli_dry = cli("propose", str(write_json(tmp_path / "p.json", one)), "--dry-run", "--json",
                  "-C", str(root))  # fmt: skip
    assert cli_dry.returncode == 0, cli_dry.stderr

    async def body(s: ClientSession) -> None:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert set(tools) == TOOLS
        for name, t in tools.items():
            assert t.description and t.annotations is not None
            assert t.annotations.read_only_hint is (name in READ_ONLY_TOOLS)
        assert tools["inspect_reflection"].input_schema["required"] == ["reflection_id"]
        listed = {str(r.uri): r for r in (await s.list_resources()).resources}
        assert set(listed) == {GUIDE_URI, SCHEMA_URI}
        guide = (await s.read_resource(GUIDE_URI)).contents[0]
        assert guide.text == (ROOT / "docs" / "curator.md").read_text("utf-8")  # type: ignore[union-attr]
        schema = (await s.read_resource(SCHEMA_URI)).contents[0]
        shipped = ROOT / "brainview" / "schema" / "proposal.schema.json"
        assert json.loads(schema.text) == json.loads(shipped.read_text("utf-8"))  # type: ignore[union-attr]

        dry = data(await s.call_tool("propose", {"proposals": one, "dry_run": True}))
        assert dry == json.loads(cli_dry.stdout)  # the CLI's receipt, field for field
        assert (
            sql(agent_db(root), "SELECT id FROM brainview_proposal WHERE id = 'prop-mcp-1'") == []
        )

        two = note("prop-mcp-2", users[1], [refl[1]])
        queued = data(await s.call_tool("propose", {"proposals": [one, two]}))
        assert queued["dry_run"] is False and queued["count"] == 2
        assert [p["id"] for p in queued["proposals"]] == ["prop-mcp-1", "prop-mcp-2"]
        again, err = error(await s.call_tool("propose", {"proposals": one}))
        assert again == "invalid_input: proposal[0].id: prop-mcp-1 already queued"
        assert err == {"error": "invalid_input", "message": again.split(": ", 1)[1],
                       "exit_code": 4}  # fmt: skip

    session_run(root, body)
    rows = sql(
        agent_db(root),
        "SELECT id, status, source, runtime, n_consulted FROM brainview_proposal "
        "WHERE id LIKE 'prop-mcp-%' ORDER BY id",
    )
    assert rows == [
        ("prop-mcp-1", "pending", "mcp", "curator-test", 1),
        ("prop-mcp-2", "pending", "mcp", "curator-test", 1),
    ]


# -- the loop: propose, the maintainer decides in the console, read it back ---------------


def test_curator_reads_back_what_the_console_decided(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    users, refl = live_ids(root)
    paths = discover(root)
    later = DEMO_NOW + timedelta(minutes=5)

    def console(
        verdict: str, pid: str, reason: str | None = None, minutes: int = 0
    ) -> review.DecisionResult:
        """What the triage screen does on ``a`` / ``r``."""
        applier = apply.applier_for(paths) if verdict == "accept" else None
        with Project.open(paths, write_agent=True, write_user=applier is not None) as project:
            return review.decide_many(
                project, [pid], verdict, reason=reason, decider="alice",  # type: ignore[arg-type]
                seconds_on_screen=12.0, now=later + timedelta(minutes=minutes), applier=applier,
            )[0]  # fmt: skip

    async def body(s: ClientSession) -> None:
        before = data(await s.call_tool("decisions_since", {"since": "1h"}))
        assert before["decisions"] == [] and before["next_cursor"] is None
        consulted = [
            {"reflection": refl[0], "stance": "support"},
            {"reflection": refl[1], "stance": "oppose"},
        ]
        batch = [note("prop-loop-a", users[0], consulted), note("prop-loop-b", users[1], [refl[2]])]
        data(await s.call_tool("propose", {"proposals": batch}))

        rejected = console("reject", "prop-loop-a", "the user already knows this")
        console("accept", "prop-loop-b", minutes=1)
        feed = data(await s.call_tool("decisions_since", {"since": "1h", "skills": ["curator"]}))
        assert feed["count"] == 2 and feed["more"] is False
        first, second = feed["decisions"]
        assert first["decision_id"] == rejected.decision_id and first["verdict"] == "reject"
        assert first["proposal_id"] == "prop-loop-a" and first["decider"] == "alice"
        assert first["reason"] == "the user already knows this" and first["undone"] is False
        assert first["new_reflection_id"] == rejected.new_reflection_id is not None
        grades = [(g["reflection"], g["stance"], g["grade_name"]) for g in first["grades"]]
        assert grades == [(refl[0], "support", "miss"), (refl[1], "oppose", "strong")]
        assert second["verdict"] == "accept" and second["proposal_status"] == "accepted"
        assert [(g["reflection"], g["grade"]) for g in second["grades"]] == [(refl[2], 4)]
        cursor = feed["next_cursor"]
        assert cursor == f"{second['changed_at']}|{second['decision_id']}|1"  # 1 at that instant
        seen = {(d["decision_id"], d["undone"]) for d in feed["decisions"]}

        quiet = data(await s.call_tool("decisions_since", {"cursor": cursor}))
        assert quiet["decisions"] == [] and quiet["next_cursor"] == cursor

        lesson = data(await s.call_tool("inspect_reflection",
                                        {"reflection_id": rejected.new_reflection_id}))  # fmt: skip
        assert lesson["origin"]["kind"] == "rejection" and lesson["state"] == "live"
        assert lesson["origin"]["proposal_id"] == "prop-loop-a"
        graded = data(
            await s.call_tool("inspect_reflection", {"reflection_id": refl[0], "recent": 1000})
        )
        last = graded["recent_grades"][-1]
        assert (last["grade_name"], last["proposal_id"], last["decider"]) == (
            "miss", "prop-loop-a", "alice",
        )  # fmt: skip
        assert rejected.new_reflection_id in {link["post"] for link in graded["links"]} | {
            link["pre"] for link in graded["links"]
        }

        with Project.open(paths, write_agent=True) as project:  # the maintainer undoes it
            review.undo(project, rejected.decision_id, now=later, actor="alice")
        undone = data(await s.call_tool("decisions_since", {"cursor": cursor}))
        # The clock floor stamps the undo at the very instant of the cursor (the frozen
        # clock is behind the last decision): that instant may be read again, and the
        # reader skips what it has already seen.
        news = [d for d in undone["decisions"] if (d["decision_id"], d["undone"]) not in seen]
        assert [d["decision_id"] for d in news] == [rejected.decision_id]
        back = news[0]
        assert back["undone"] is True and back["undone_by"] == "alice"
        assert back["proposal_status"] == "pending"
        assert [(g["reflection"], g["grade_name"]) for g in back["grades"]] == [
            (refl[0], "miss"), (refl[1], "strong"),
        ]  # the grades the undo took back  # fmt: skip
        paged = data(await s.call_tool("decisions_since", {"since": "1h", "limit": 1}))
        assert paged["count"] == 1 and paged["more"] is True

    session_run(root, body)


def test_inspect_reflection_state_card_and_trail(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    _, refl = live_ids(root)
    rid = refl[3]
    inspected = cli("reflect", "inspect", rid, "--json", "-C", str(root))
    cli_view = json.loads(inspected.stdout)
    with Project.open(discover(root), write_agent=True) as project:
        lifecycle.challenge(project, [refl[4]], reason="looks planted", actor="bob", now=DEMO_NOW)

    async def body(s: ClientSession) -> tuple[dict[str, Any], dict[str, Any]]:
        one = data(await s.call_tool("inspect_reflection", {"reflection_id": rid, "recent": 3}))
        doubted = data(await s.call_tool("inspect_reflection", {"reflection_id": refl[4]}))
        return one, doubted

    one, doubted = session_run(root, body)
    assert (one["id"], one["state"], one["content"]) == (rid, "live", cli_view["content"])
    card = cli_view["card"]
    assert one["card"]["retrievability"] == pytest.approx(card["retrievability"])
    assert (one["card"]["stability"], one["card"]["due"]) == (card["stability"], card["due"])
    assert one["recent_grades"] == cli_view["recent_spikes"][-3:]
    assert one["links_total"] == len(cli_view["synapses"]) and len(one["links"]) <= 3
    assert one["refs"] == cli_view["refs"]
    assert doubted["state"] == "challenged"
    assert doubted["lifecycle_history"][-1]["reason"] == "looks planted"


# -- errors ------------------------------------------------------------------------------


def test_errors_are_tool_errors_with_the_clis_kind_and_message(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    users, refl = live_ids(root)
    bad_kind = {"kind": "x"}
    retired = sql(user_db(root), "SELECT id FROM neuron WHERE retired_at IS NOT NULL LIMIT 1")
    on_retired = note("prop-err", retired[0][0], [refl[0]])
    expected = []
    for value in (bad_kind, on_retired):
        out = cli("propose", str(write_json(tmp_path / "e.json", value)), "--json",
                  "-C", str(root))  # fmt: skip
        assert out.returncode == 4
        expected.append(json.loads(out.stderr))
    before = sql(agent_db(root), "SELECT COUNT(*) FROM brainview_proposal")

    async def body(s: ClientSession) -> list[tuple[str, dict[str, Any]]]:
        calls = [
            ("propose", {"proposals": bad_kind}),
            ("propose", {"proposals": on_retired}),
            ("propose", {"proposals": [note("prop-ok", users[0], []), {"kind": "x"}]}),
            ("inspect_reflection", {"reflection_id": "r-nope"}),
            ("decisions_since", {"since": "yesterday"}),
            ("decisions_since", {"cursor": "garbage"}),
            ("decisions_since", {"limit": 0}),
            ("decisions_since", {"limit": "many"}),
        ]
        return [error(await s.call_tool(name, args)) for name, args in calls]

    got = session_run(root, body, "--runtime", "curator/model-x")
    assert [obj for _, obj in got[:2]] == expected  # the CLI's --json error, exactly
    for text, obj in got:
        assert text == f"{obj['error']}: {obj['message']}"
    assert got[0][0].startswith("invalid_input: proposal[0].kind: unknown kind 'x'")
    assert got[1][0] == f"invalid_input: proposal[0].params: user neuron {retired[0][0]} is retired"
    assert got[2][0].startswith("invalid_input: proposal[1].kind: unknown kind 'x'")
    assert got[3][1] == {"error": "not_found", "exit_code": 3,
                         "message": "no reflection 'r-nope' in the agent brain"}  # fmt: skip
    assert got[4][0] == (
        "usage: since: expected an ISO 8601 date/time or an age like 7d, got 'yesterday'"
    )
    assert got[5][1]["error"] == "usage" and got[5][1]["exit_code"] == 2
    assert got[6][0] == "usage: limit must be between 1 and 1000"
    assert got[7][0].startswith("usage: decisions_since: limit: ")
    assert sql(agent_db(root), "SELECT COUNT(*) FROM brainview_proposal") == before


def test_no_agent_brain_yet_is_not_found(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    shutil.rmtree(root / ".spikuit" / "agent")

    async def body(s: ClientSession) -> list[tuple[str, dict[str, Any]]]:
        calls = [
            ("decisions_since", {}),
            ("propose", {"proposals": {"kind": "note"}}),
            ("recall", {"text": "limits"}),
            ("inspect_reflection", {"reflection_id": "r-1"}),
        ]
        return [error(await s.call_tool(name, args)) for name, args in calls]

    got = session_run(root, body)
    assert len({text for text, _ in got}) == 1  # the same error from every tool
    for text, obj in got:
        assert obj["error"] == "not_found" and obj["exit_code"] == 3
        assert "brainview init-agent" in text
    assert not (root / ".spikuit" / "agent").exists()


def test_bad_project_or_runtime_fails_before_serving(tmp_path: Path) -> None:
    env = {**os.environ, **ENV, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "brainview.cli", "mcp"]
    missing = subprocess.run([*argv, str(tmp_path / "nowhere")], capture_output=True,
                             text=True, env=env, stdin=subprocess.DEVNULL, timeout=60)  # fmt: skip
    assert missing.returncode == 3 and missing.stdout == ""
    assert missing.stderr.startswith("brainview: ") and missing.stderr.count("\n") == 1
    bad = subprocess.run([*argv, str(tmp_path), "--runtime", "a\x1bb"], capture_output=True,
                         text=True, env=env, stdin=subprocess.DEVNULL, timeout=60)  # fmt: skip
    assert bad.returncode == 2
    assert bad.stderr == (
        "brainview: --runtime: must be printable text of at most 128 characters\n"
    )


def test_parsed_input_is_held_to_the_clis_limits() -> None:
    from brainview.errors import InvalidInputError
    from brainview.services.intake.proposing import check_value

    deep: Any = {"kind": "note"}
    for _ in range(40):
        deep = {"x": deep}
    cases = {
        "input: JSON nested deeper than 32 levels": deep,
        "input: NaN is not valid JSON": {"params": {"weight": float("nan")}},
        "input: -Infinity is not valid JSON": [{"params": {"weight": float("-inf")}}],
        "input: a \\u escape names a lone surrogate (not text)": {"rationale": "\ud800"},
    }
    for message, value in cases.items():
        with pytest.raises(InvalidInputError) as refused:
            check_value(value)
        assert refused.value.message == message
    check_value([{"kind": "note", "rationale": "ok \U0001f600", "params": {"weight": 0.5}}])


def test_every_group_declares_its_tools_and_crashes_read_as_the_cli_says_them() -> None:
    from importlib import import_module

    from brainview.errors import ConflictError
    from brainview.mcp import registry, server

    declared = [
        spec.name
        for group in server.GROUPS
        for spec in registry.tools_of(import_module(f"brainview.mcp.{group}"))
    ]
    assert sorted(declared) == sorted(TOOLS)

    def crash() -> None:
        raise KeyError("boom")

    def conflict() -> None:
        raise ConflictError("proposal p-1 was decided elsewhere")

    crashed = registry.guarded(crash)
    assert crashed.is_error and crashed.structured_content == {
        "error": "internal", "message": "internal error: KeyError: 'boom'", "exit_code": 70,
    }  # fmt: skip
    refused = registry.guarded(conflict)
    assert refused.content[0].text == "conflict: proposal p-1 was decided elsewhere"  # type: ignore[union-attr]
    text = registry.guarded(lambda: '{"a": 1}')
    assert text.structured_content == {"a": 1} and not text.is_error


# -- read-only ---------------------------------------------------------------------------


def test_read_tools_and_dry_run_write_nothing(make_demo) -> None:  # type: ignore[no-untyped-def]
    root, info = make_demo(DemoSpec(history=True))
    users, refl = live_ids(root)

    async def body(s: ClientSession) -> None:
        await s.list_tools()
        await s.read_resource(GUIDE_URI)
        await s.read_resource(SCHEMA_URI)
        feed = data(await s.call_tool("decisions_since", {"limit": 5}))
        assert feed["count"] == 5
        data(await s.call_tool("decisions_since", {"cursor": feed["next_cursor"]}))
        data(await s.call_tool("inspect_reflection", {"reflection_id": refl[0]}))
        data(await s.call_tool("inspect_reflection", {"reflection_id": info.policy_ids[0]}))
        data(await s.call_tool("queue_health", {}))
        assert data(await s.call_tool("approvals", {}))["two_person"]["waiting"] == 0
        dry = note("prop-dry", users[0], [refl[0]])
        assert data(await s.call_tool("propose", {"proposals": dry, "dry_run": True}))["count"]
        error(await s.call_tool("propose", {"proposals": {"kind": "x"}}))

    assert_read_only(root, lambda: session_run(root, body))
