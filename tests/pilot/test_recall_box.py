"""The recall box driven through the real app (time frozen): typed queries rank lessons
with why, triage opens it for the proposal under review, a missing agent brain is one
line, browsing writes nothing; and triage sets "retrieved, not consulted" apart."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.geometry import Region
from textual.widgets import DataTable, OptionList, Static

from brainview.core.refs import parse_refs
from brainview.demo.generator import DEMO_NOW
from brainview.services.intake import submit
from brainview.services.project import Project
from brainview.store.discovery import discover
from brainview.store.recall_handle import close_all
from brainview.tui.app import make_app
from brainview.tui.clock import frozen
from brainview.tui.recall import RecallScreen
from brainview.tui.recall.box import RecallBox
from brainview.tui.recall.render import NOT_LOGGED
from brainview.tui.reflection import ReflectionScreen
from brainview.tui.triage.render_agent import RETRIEVED_NOTE, RETRIEVED_TITLE
from tests.tui_helpers import settle


@pytest.fixture(autouse=True)
def _fresh_handles() -> Iterator[None]:
    yield
    close_all()


def _app(root: Path, start: str):  # type: ignore[no-untyped-def]
    return make_app(discover(root), clock=frozen(DEMO_NOW), start=start, decider="pilot")


def _content(root: Path, rid: str) -> str:
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    try:
        return str(conn.execute("SELECT content FROM neuron WHERE id = ?", (rid,)).fetchone()[0])
    finally:
        conn.close()


def _counts(db: Path) -> dict[str, int]:
    """Rows per table of one brain (the schema included, as ``sqlite_master``)."""
    conn = sqlite3.connect(db)
    try:
        names = [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        out = {n: conn.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}
        out["sqlite_master"] = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        return out
    finally:
        conn.close()


def _prompts(box: RecallBox) -> list[str]:
    hits = box.query_one("#recall-hits", OptionList)
    return [str(hits.get_option_at_index(i).prompt) for i in range(hits.option_count)]


def _rendered(static: Static) -> str:
    """The text a widget shows, as rendered (lines joined: phrases may wrap)."""
    width, height = static.size
    lines = static.render_lines(Region(0, 0, width, height))
    return " ".join(" ".join(s.text for s in lines).split())


def _shown(box: RecallBox, widget_id: str) -> str:
    return _rendered(box.query_one(widget_id, Static))


async def _open_recall(pilot) -> RecallBox:  # type: ignore[no-untyped-def]
    await pilot.press("w")
    await settle(pilot)
    assert isinstance(pilot.app.screen, RecallScreen)
    return pilot.app.screen.box


async def test_typed_words_and_neuron_rank_lessons_with_why(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    family = info.themes["keyword overlap"]
    cited = parse_refs(_content(root, family[0]))[0]
    app = _app(root, "communities")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        communities = app.screen
        box = await _open_recall(pilot)
        assert box.browsed is None and box.draft is None and box.border_subtitle == NOT_LOGGED
        await pilot.press(*f"keywords overlap purposes differ {cited} n-gram", "enter")
        await settle(pilot)
        assert not box.loading and box.error == "" and box.browsed is not None
        result = box.browsed.result
        assert result.recall_id is None  # browsing is never logged
        assert len(box.hit_ids) == 10 and box.hit_ids[0] in family
        assert sum(h in family for h in box.hit_ids) >= 5
        assert [r.neuron_id for r in box.browsed.refs] == [cited]
        assert box.browsed.words == ["n-gram"]  # names no neuron: searched as a word
        prompts = _prompts(box)
        assert len(prompts) == 10 and prompts[0].startswith(f" 1. {box.hit_ids[0]}")
        top = result.hits[0]
        assert f"lexical {top.lexical:.2f} (bm25 {top.bm25:.2f})" in prompts[0]
        assert f"spread {top.spread:.2f}" in prompts[0]
        assert f"R {top.retrievability:.2f}" in prompts[0] and "suggest " in prompts[0]
        assert "words " + ", ".join(top.matched_words[:3]) in prompts[0]
        assert "[user:" not in "".join(prompts) and "⟦" in prompts[0]
        citing = next(i for i, h in enumerate(result.hits) if cited in h.refs_direct)
        assert "cites ⟦" in prompts[citing]
        about = _shown(box, "#recall-about")
        assert cited in about and "n-gram — no such user neuron" in about
        assert _shown(box, "#recall-status").startswith("10 lesson(s), best first")
        assert "policies over these lessons" in _shown(box, "#recall-policies")
        # Down to the hits, enter on the second: the reflection view; escape comes back.
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ReflectionScreen)
        assert app.screen.reflection_id == box.hit_ids[1]
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.box is box
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is communities


async def test_triage_opens_it_for_the_proposal_under_review(demo) -> None:  # type: ignore[no-untyped-def]
    """A merge of the two neurons a "keyword overlap" lesson names, consulting it: its
    recall puts that lesson first, suggesting to oppose."""
    root, info = demo
    rid = info.themes["keyword overlap"][0]
    keep, merge = parse_refs(_content(root, rid))[:2]
    with Project.open(discover(root), write_agent=True) as project:
        submit(
            project,
            {
                "id": "prop-recall-1",
                "kind": "merge_neurons",
                "params": {"keep": keep, "merge": [merge]},
                "rationale": "their keywords overlap, looks like a duplicate",
                "consulted": [{"reflection": rid, "stance": "oppose"}],
            },
            now=DEMO_NOW,
        )
    app = _app(root, "triage")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"prop-recall-1", "enter")
        await settle(pilot)
        assert app.screen.current_id == "prop-recall-1"
        box = await _open_recall(pilot)
        assert box.draft is not None and box.draft.proposal_id == "prop-recall-1"
        assert box.draft.kind == "merge_neurons" and box.draft.params["keep"] == keep
        assert box.browsed is not None and box.hit_ids[0] == rid
        top = box.browsed.result.hits[0]
        assert top.stance == "oppose" and set(top.refs_direct) == {keep, merge}
        assert "▼ oppose" in _prompts(box)[0]
        about = _shown(box, "#recall-about")
        assert "for proposal prop-recall-1 · merge_neurons" in about
        assert keep in about and merge in about
        # ctrl+t drops the proposal (nothing typed: nothing to recall), and takes it back.
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert box.draft is None and "for the words" in _shown(box, "#recall-about")
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert box.draft is not None and box.hit_ids[0] == rid
        # Help lists the box's own keys (the focused widget's) with the screen's.
        await pilot.press("f1")
        await settle(pilot)
        table = app.screen.query_one("#help-keys", DataTable)
        keys = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        assert {"ctrl+t", "down", "esc", "ctrl+r, f5"} <= set(keys)


async def test_missing_agent_brain_is_one_line(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    shutil.rmtree(root / ".spikuit" / "agent")
    app = _app(root, "communities")
    failed: list[RecallBox.Failed] = []
    async with app.run_test(size=(120, 40), message_hook=_collect(failed)) as pilot:
        await settle(pilot)
        box = await _open_recall(pilot)
        await pilot.press("enter")  # nothing typed: refused before any read
        await pilot.pause()
        assert box.error.startswith("nothing to recall") and box.has_class("-failed")
        await pilot.press(*"keywords", "enter")
        await settle(pilot)
        assert box.error.startswith("no agent brain yet") and "\n" not in box.error
        assert box.browsed is None and not box.loading and box.has_class("-failed")
        status = _shown(box, "#recall-status")
        assert status == " ".join(f"✗ {box.error}".split()) and "Traceback" not in status
        # Posted once (the hook sees it at each node it bubbles through).
        assert list({id(m): m.text for m in failed}.values()) == [box.error]
        assert "brainview init-agent" in box.error


def _collect(into: list[RecallBox.Failed]):  # type: ignore[no-untyped-def]
    def hook(message: object) -> None:
        if isinstance(message, RecallBox.Failed):
            into.append(message)

    return hook


async def test_browsing_writes_nothing_to_either_brain(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    user_db = root / ".spikuit" / "circuit.db"
    agent_db = root / ".spikuit" / "agent" / "circuit.db"
    before = (_counts(user_db), _counts(agent_db))
    app = _app(root, "triage")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        box = await _open_recall(pilot)  # for the first proposal's draft
        assert box.hit_ids
        await pilot.press(*f"merge duplicate {info.user_ids[0]}", "enter")
        await settle(pilot)
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert box.hit_ids and box.error == ""
    assert (_counts(user_db), _counts(agent_db)) == before
    assert "brainview_recall" not in before[1]  # no recall log was ever created


async def test_triage_sets_retrieved_not_consulted_apart(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = _app(root, "triage")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        detail = app.screen.detail
        assert detail is not None and detail.consulted and detail.retrieved
        pane = _rendered(app.screen.query_one("#reflections", Static))
        title = f"{RETRIEVED_TITLE} ({len(detail.retrieved)})"
        assert title in pane and RETRIEVED_NOTE in pane and "retrieved only" not in pane
        consulted, _, apart = pane.partition(title)
        assert all(v.id in consulted for v in detail.consulted)
        assert all(v.id in apart and v.id not in consulted for v in detail.retrieved)
        assert "○ seen" in apart and "accept →" not in apart  # no verdict grades them
        assert consulted.count("accept →") == sum(v.live for v in detail.consulted)
