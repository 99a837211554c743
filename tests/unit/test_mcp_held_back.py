"""``report_held_back`` over MCP: the SDK's own stdio client drives a real ``brainview
mcp`` process, as an agent runtime does (helpers from :mod:`test_mcp`)."""

from __future__ import annotations

from typing import Any

from mcp import ClientSession
from test_cli import agent_db, sql
from test_mcp import data, error, live_ids, session_run


def test_a_curator_reports_a_withdrawn_draft_after_recall(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    users, refl = live_ids(root)
    draft = {"kind": "note", "params": {"neurons": [users[0]]}, "rationale": "worth a quiz"}

    async def body(s: ClientSession) -> dict[str, Any]:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert tools["report_held_back"].annotations.read_only_hint is False  # type: ignore[union-attr]
        hit = data(await s.call_tool("recall", {"text": "merging keywords overlap"}))
        report = {
            "id": "hb-mcp-1", "action": "withdrawn", "draft": draft,
            "recall": hit["recall_id"],
            "lessons": [{"reflection": refl[0], "stance": "oppose"}],
        }  # fmt: skip
        got = data(await s.call_tool("report_held_back", {"report": report}))
        again = data(await s.call_tool("report_held_back", {"report": report}))
        assert again["already_reported"] is True and again["reported_at"] == got["reported_at"]
        bad, err = error(
            await s.call_tool(
                "report_held_back", {"report": {**report, "id": "hb-mcp-2", "action": "lost"}}
            )
        )
        assert bad == "invalid_input: held_back.action: must be one of withdrawn, rewritten"
        assert err["exit_code"] == 4
        hostile = {**draft, "rationale": "look \x1b]52;c;cGF5bG9hZA==\x07"}
        bad, _err = error(
            await s.call_tool(
                "report_held_back", {"report": {**report, "id": "hb-mcp-3", "draft": hostile}}
            )
        )
        assert bad.startswith("invalid_input: held_back.draft.rationale")
        return got

    got = session_run(root, body)
    assert got["already_reported"] is False and got["runtime"] == "curator-test"
    assert got["recall_id"].startswith("rc-")
    rows = sql(agent_db(root), "SELECT id, action, runtime, source FROM brainview_held_back")
    assert rows == [("hb-mcp-1", "withdrawn", "curator-test", "mcp")]
    lessons = sql(agent_db(root), "SELECT reflection_id, stance FROM brainview_held_back_lesson")
    assert lessons == [(refl[0], "oppose")]
