"""Semantic recall through the project's embedder, spoken to over the real HTTP protocol
(a stand-in server the tests start, configured in the agent brain's ``config.toml`` as
Spikuit expects), and every way it falls back to lexical recall."""

from __future__ import annotations

import hashlib
import json
import socket
import sqlite3
import stat
from datetime import timedelta
from pathlib import Path
from unittest import mock

import pytest

from brainview.commands.recall import render
from brainview.services import lifecycle
from brainview.services.project import Project
from brainview.services.recall import recall
from brainview.services.recall.result import RecallQuery
from brainview.store import recall_embedder, recall_index
from brainview.store.discovery import discover
from brainview.store.recall_handle import close_all
from tests.embedder_server import configure, stand_in

LESSON = "r-sem1"
TEXT = "Never fuse two platypus notes: the tutor loses the egg laying contrast."
QUERY = "should I combine the echidna cards"


@pytest.fixture(autouse=True)
def _fresh_handles():  # type: ignore[no-untyped-def]
    yield
    close_all()


def _agent_config(root: Path) -> Path:
    return root / ".spikuit" / "agent" / "config.toml"


def _add(root: Path, rid: str, text: str, stamp: str = "2026-11-30T09:00:00+00:00") -> None:
    c = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db", isolation_level=None)
    c.execute(
        "INSERT INTO neuron (id, content, type, domain, created_at, updated_at) "
        "VALUES (?, ?, 'reflection', 'curator', ?, ?)",
        (rid, text, stamp, stamp),
    )
    c.close()


def _run(root: Path, now, text: str = QUERY, **kw):  # type: ignore[no-untyped-def]
    with Project.open(discover(root)) as p:
        return recall(p, RecallQuery(text=text, **kw), now=now, log=False)


def _docs(server) -> list[str]:  # type: ignore[no-untyped-def]
    """Lesson texts the server was asked to embed (queries left out)."""
    return [t for r in server.requests for t in r["body"]["input"]
            if t != QUERY and not t.startswith("search_query")]  # fmt: skip


def test_no_embedder_is_lexical_recall_said_once(demo, now) -> None:
    root, _info = demo
    _add(root, LESSON, TEXT)
    res = _run(root, now)
    assert res.semantic["on"] is False and res.semantic["reason"] == "no embedder configured"
    assert LESSON not in {h.reflection for h in res.hits}  # no shared word with the query
    lines = render(res.to_json())
    assert lines[0] == ("semantic: off (no embedder configured); lexical, cited and spreading only")
    assert sum("semantic" in line for line in lines) == 1


def test_a_lesson_in_other_words_is_found_through_the_embedder(demo, now) -> None:
    root, _info = demo
    _add(root, LESSON, TEXT)
    with stand_in(64) as server:
        configure(_agent_config(root), server.url + "/v1", prefix_style="nomic")
        res = _run(root, now)
        hit = next(h for h in res.hits if h.reflection == LESSON)
        assert res.semantic["on"] is True and res.semantic["lessons"] >= 150
        assert hit.rank == 1 and hit.found_by == ["semantic"] and hit.bm25 == 0
        assert hit.cosine is not None and hit.cosine > 0.3
        data = res.to_json()
        assert data["semantic"]["model"] == "openai-compat stand-in (64 dimensions)"
        assert data["hits"][0]["found_by"] == ["semantic"]
        assert data["hits"][0]["components"]["semantic"] == 1.0
        # Spikuit's protocol and prefixes: documents and query, bearer token, model
        paths = {r["path"] for r in server.requests}
        assert paths == {"/v1/embeddings"}
        assert all(r["auth"] == "Bearer not-needed" for r in server.requests)
        assert {r["body"]["model"] for r in server.requests} == {"stand-in"}
        queries = [t for r in server.requests for t in r["body"]["input"]
                   if t.startswith("search_query: ")]  # fmt: skip
        assert queries == [f"search_query: {QUERY}"]
        assert f"search_document: {TEXT}" in _docs(server)
        assert render(data)[0].startswith("semantic: on (openai-compat stand-in")


def test_vectors_are_cached_outside_the_brain_privately_and_follow_other_writers(demo, now) -> None:
    root, _info = demo
    db = root / ".spikuit" / "agent" / "circuit.db"
    _add(root, LESSON, TEXT)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    with stand_in(64) as server:
        configure(_agent_config(root), server.url + "/v1")
        first = _run(root, now)
        assert first.semantic["computed"] == first.semantic["lessons"]
        asked = len(_docs(server))
        assert asked == first.semantic["lessons"]
        assert hashlib.sha256(db.read_bytes()).hexdigest() == before  # never written
        assert not db.with_name("circuit.db-wal").exists()
        cache = recall_index.cache_dir()
        files = [f for f in cache.iterdir() if f.suffix == ".sqlite"]
        assert files and all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in files)
        assert stat.S_IMODE(cache.stat().st_mode) == 0o700
        close_all()  # another process: vectors come from the cache, none asked again
        again = _run(root, now)
        assert len(_docs(server)) == asked and again.hits[0].reflection == LESSON
        # another process edits the lesson and adds one: just those two are embedded
        c = sqlite3.connect(db, isolation_level=None)
        c.execute(
            "UPDATE neuron SET content = 'Plain arithmetic note', "
            "updated_at = '2026-11-30T10:00:00+00:00' WHERE id = ?",
            (LESSON,),
        )
        c.close()
        _add(root, "r-sem2", "An echidna and a platypus are both monotremes")
        moved = _run(root, now)
        assert sorted(_docs(server)[asked:]) == [
            "An echidna and a platypus are both monotremes",
            "Plain arithmetic note",
        ]
        assert moved.hits[0].reflection == "r-sem2"
        assert LESSON not in {h.reflection for h in moved.hits if "semantic" in h.found_by}


def test_a_quarantined_lesson_is_never_returned_however_similar(demo, now) -> None:
    root, _info = demo
    _add(root, LESSON, TEXT)
    with stand_in(64) as server:
        configure(_agent_config(root), server.url + "/v1")
        assert _run(root, now).hits[0].reflection == LESSON
        with Project.locate(root, write_agent=True) as p:
            lifecycle.quarantine(p, [LESSON], reason="wrong", actor="alice", now=now)
        res = _run(root, now + timedelta(minutes=1))
        assert LESSON not in {h.reflection for h in res.hits}
        assert res.semantic["on"] is True


def test_ollama_protocol(demo, now) -> None:
    root, _info = demo
    _add(root, LESSON, TEXT)
    with stand_in(48) as server:
        configure(_agent_config(root), server.url, provider="ollama", dimension=48)
        res = _run(root, now)
        assert res.semantic["on"] and res.hits[0].reflection == LESSON
        assert {r["path"] for r in server.requests} == {"/api/embed"}


def test_project_config_is_used_when_the_agent_brain_names_no_embedder(demo, now) -> None:
    root, _info = demo
    _add(root, LESSON, TEXT)
    with stand_in(64) as server:
        configure(root / ".spikuit" / "config.toml", server.url + "/v1")
        res = _run(root, now)
        assert res.semantic["on"] and res.semantic["config"].endswith(".spikuit/config.toml")


def test_unreachable_embedder_falls_back_once_and_is_not_asked_again(demo, now) -> None:
    root, _info = demo
    _add(root, LESSON, TEXT)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    configure(_agent_config(root), f"http://127.0.0.1:{port}/v1")
    res = _run(root, now, text="platypus notes")
    assert res.semantic["on"] is False and "unreachable" in res.semantic["reason"]
    assert res.hits[0].reflection == LESSON  # lexical recall as without an embedder
    assert render(res.to_json())[0].startswith("semantic: off (embedder unreachable at")


def test_slow_embedder_times_out_and_is_left_alone_for_a_while(demo, now) -> None:
    root, _info = demo
    _add(root, LESSON, TEXT)
    with (
        stand_in(64) as server,
        mock.patch.object(recall_embedder, "QUERY_TIMEOUT", 0.2),
        mock.patch.object(recall_embedder, "BATCH_TIMEOUT", 0.2),
    ):
        server.delay = 1.0
        configure(_agent_config(root), server.url + "/v1")
        with Project.open(discover(root)) as p:
            first = recall(p, RecallQuery(text="platypus notes"), now=now, log=False)
            asked = len(server.requests)
            second = recall(p, RecallQuery(text="platypus notes"), now=now, log=False)
        assert first.semantic["on"] is False and "timed out" in first.semantic["reason"]
        assert second.semantic == first.semantic | {"model": first.semantic["model"]}
        assert len(server.requests) == asked  # not asked again within RETRY_AFTER
        assert second.hits[0].reflection == LESSON


@pytest.mark.parametrize("served", [32, 0], ids=["wrong-length", "http-500"])
def test_dimension_mismatch_or_error_falls_back(demo, now, served: int) -> None:
    root, _info = demo
    _add(root, LESSON, TEXT)
    with stand_in(served or 64) as server:
        server.fail = served == 0
        configure(_agent_config(root), server.url + "/v1", dimension=64)
        res = _run(root, now, text="platypus notes")
    reason = res.semantic["reason"]
    assert res.semantic["on"] is False
    if served:
        assert reason == "dimension mismatch: the embedder returned 32, the config says 64"
    else:
        assert reason.startswith("embedder answered HTTP 500")
    assert res.hits[0].reflection == LESSON


def test_bad_config_is_one_line_and_no_symlinked_config_is_read(demo, now, tmp_path) -> None:
    root, _info = demo
    _agent_config(root).write_text("[embedder]\nprovider = 'word2vec'\n")
    assert _run(root, now, text="anything").semantic["reason"] == (
        "unknown embedder provider 'word2vec'"
    )
    _agent_config(root).write_text("[embedder\n")
    assert "not valid TOML" in _run(root, now, text="anything").semantic["reason"]
    elsewhere = tmp_path / "elsewhere.toml"
    elsewhere.write_text('[embedder]\nprovider = "ollama"\n')
    _agent_config(root).unlink()
    _agent_config(root).symlink_to(elsewhere)
    assert _run(root, now, text="anything").semantic["reason"] == "no embedder configured"


def test_cli_json_carries_the_semantic_field(demo, now, capsys) -> None:  # type: ignore[no-untyped-def]
    from brainview.cli import main

    root, _info = demo
    code = main(["recall", str(root), "--text", "platypus", "--no-log", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["semantic"] == {"on": False, "reason": "no embedder configured"}


def test_a_cold_cache_fills_a_bounded_number_a_recall_and_survives_a_new_url(demo, now) -> None:
    from brainview.services.recall import semantic as semantic_module

    root, _info = demo
    _add(root, LESSON, TEXT)
    with stand_in(64) as server, mock.patch.object(semantic_module, "MAX_EMBED", 60):
        configure(_agent_config(root), server.url + "/v1")
        with Project.open(discover(root)) as p:
            seen = []
            for _ in range(4):
                res = recall(p, RecallQuery(text=QUERY), now=now, log=False)
                seen.append((res.semantic["computed"], res.semantic["missing"]))
        total = res.semantic["lessons"]
        assert seen == [(60, total - 60), (120, total - 120), (total, 0), (total, 0)]
        asked = _docs(server)
        assert len(asked) == len(set(asked)) == total  # each lesson asked once
    close_all()
    with stand_in(64) as moved:  # the same model served on another port
        configure(_agent_config(root), moved.url + "/v1")
        res = _run(root, now)
        assert res.semantic["computed"] == total and _docs(moved) == []
