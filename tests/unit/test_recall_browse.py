"""Browsing recall (the console's): typed neuron ids are told from words, references are
named, nothing is logged, and any thread may recall (a console's workers each run in a
thread of their own)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from brainview.core.refs import parse_refs
from brainview.errors import InvalidInputError
from brainview.services.project import Project
from brainview.services.recall.browse import ProposalDraft, browse, split_typed
from brainview.store.discovery import discover
from brainview.store.recall_handle import close_all


@pytest.fixture(autouse=True)
def _fresh_handles() -> Iterator[None]:
    yield
    close_all()


def _content(root: Path, rid: str) -> str:
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    try:
        return str(conn.execute("SELECT content FROM neuron WHERE id = ?", (rid,)).fetchone()[0])
    finally:
        conn.close()


def test_split_typed_keeps_order_and_punctuation_out() -> None:
    words, ids = split_typed("merge n-ab12, n-gram [user:n-cd34] and [user:bad n-ab12.")
    assert ids == ["n-ab12", "n-gram", "n-cd34"]
    assert words == "merge and [user:bad"
    assert split_typed("") == ("", [])


def test_typed_ids_become_refs_unknown_ones_stay_words(demo, now) -> None:
    root, info = demo
    rid = info.themes["keyword overlap"][0]
    cited = parse_refs(_content(root, rid))[0]
    with Project.open(discover(root)) as p:
        got = browse(p, text=f"keywords overlap [user:{cited}] n-nowhere", now=now)
        with pytest.raises(InvalidInputError):
            browse(p, text="   ", now=now)
    assert got.result.recall_id is None
    assert got.result.query["refs"] == [cited] and "nowhere" in got.result.query["terms"]
    assert [r.neuron_id for r in got.refs] == [cited] and got.refs[0].live
    assert got.words == ["n-nowhere"]
    assert any(cited in h.refs_direct for h in got.result.hits)
    for h in got.result.hits:
        assert "[user:" not in got.shown[h.reflection]
    assert all(p.policy in got.shown for p in got.result.policies)


def test_a_draft_ranks_its_lesson_first_and_logs_nothing(demo, now) -> None:
    root, info = demo
    rid = info.themes["keyword overlap"][0]
    keep, merge = parse_refs(_content(root, rid))[:2]
    draft = ProposalDraft(
        "prop-x", "merge_neurons", {"keep": keep, "merge": [merge]}, "keywords overlap"
    )
    with Project.open(discover(root)) as p:
        got = browse(p, text="", draft=draft, now=now)
    assert got.result.hits[0].reflection == rid and got.result.hits[0].stance == "oppose"
    assert {r.neuron_id for r in got.refs} == {keep, merge}
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    try:
        logged = conn.execute(
            "SELECT count(*) FROM sqlite_master WHERE name = 'brainview_recall'"
        ).fetchone()[0]
    finally:
        conn.close()
    assert logged == 0


def test_recall_from_another_thread_uses_the_same_index(demo, now) -> None:
    """The handle (and its index connection) outlives the thread that opened it."""
    root, _info = demo
    results: list[object] = []
    with Project.open(discover(root)) as p:

        def run() -> None:
            try:
                results.append(browse(p, text="merge duplicate", now=now).result.hits[0])
            except Exception as err:  # noqa: BLE001 - the assertion below shows it
                results.append(err)

        for _ in range(2):
            t = threading.Thread(target=run)
            t.start()
            t.join()
    assert len(results) == 2 and not any(isinstance(r, Exception) for r in results), results
    assert results[0] == results[1]
