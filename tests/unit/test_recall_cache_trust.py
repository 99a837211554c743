"""The recall cache is a file outside the brains that anyone with the account can edit:
it is checked against the brain before it is believed.  One ``doc`` row flipped to
``retired`` (a live lesson hidden from every recall) is caught — by a fresh process and
inside a long-running one — and the index rebuilt."""

from __future__ import annotations

import hashlib
import sqlite3
import time
from pathlib import Path

import pytest
from test_recall import _open, _theme_draft

from brainview.services.recall import recall
from brainview.services.recall.result import RecallQuery
from brainview.store import recall_index
from brainview.store.recall_handle import close_all


@pytest.fixture(autouse=True)
def _fresh_handles():  # type: ignore[no-untyped-def]
    yield
    close_all()


def _hide(root: Path, lesson: str) -> None:
    """Flip the lesson's row to retired in this brain's cache file (another process's
    edit); other tests' cache files in the same directory are left alone."""
    brain = (root / ".spikuit" / "agent" / "circuit.db").resolve()
    db = recall_index.cache_dir() / f"{hashlib.sha256(str(brain).encode()).hexdigest()[:32]}.sqlite"
    conn = sqlite3.connect(db)
    try:
        with conn:
            done = conn.execute("UPDATE doc SET retired = 1 WHERE id = ?", (lesson,))
            assert done.rowcount == 1
    finally:
        conn.close()


@pytest.mark.parametrize("process", ["fresh", "long-running"])
def test_a_lesson_flipped_to_retired_in_the_cache_is_still_recalled(
    demo, now, process: str
) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    rid, draft = _theme_draft(root, info.themes["keyword overlap"])
    query = RecallQuery(proposal=draft, limit=10)
    with _open(root) as p:
        first = recall(p, query, now=now, log=False)
        assert first.hits[0].reflection == rid
        if process == "fresh":
            close_all()
        time.sleep(0.06)  # the brain's stamp settles: the next recall may take the fast path
        _hide(root, rid)
        again = recall(p, query, now=now, log=False)
    assert again.hits[0].reflection == rid
    assert again.index["sync"] in ("incremental", "full")
