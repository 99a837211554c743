"""Titles, not ids, where a person reads (issue 32)."""

from __future__ import annotations

import re
import sqlite3

from brainview.demo.generator import DEMO_NOW
from brainview.services.review import detail as detail_service
from brainview.tui.triage.render_proposal import neuron_titles, titled

USER_ID = re.compile(r"\bn-[0-9a-f]{6,}")


def _pending(root) -> list[str]:  # type: ignore[no-untyped-def]
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    try:
        sql = "SELECT id FROM brainview_proposal WHERE status = 'pending' ORDER BY id"
        return [r[0] for r in conn.execute(sql)]
    finally:
        conn.close()


def test_change_rows_name_both_ends_of_a_synapse(demo, project) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    rows = 0
    for pid in _pending(root):
        d = detail_service.load(project, pid, DEMO_NOW)
        titles = neuron_titles(d)
        for what, _before, _after in d.preview:
            if what.startswith(("synapse", "lineage")):
                rows += 1
                assert not USER_ID.search(titled(what, titles)), (pid, what)
    assert rows > 20


def test_blast_radius_rows_read_by_summary_not_id() -> None:
    from types import SimpleNamespace

    from brainview.tui.lifecycle.radius import proposal_text

    hit = SimpleNamespace(
        proposal_id="prop-0123456789ab",
        kind="add_synapse",
        role="consulted",
        stance="support",
        summary="link [user:n-abcdef01] to [user:n-abcdef02]",
        decider=None,
    )
    titles = {"n-abcdef01": ("Monad laws", True), "n-abcdef02": ("Functor", True)}
    text = proposal_text([hit], titles).plain  # type: ignore[list-item]
    assert text.startswith("add_synapse (consulted/support)  link ⟦Monad laws⟧ to ⟦Functor⟧")
    assert not USER_ID.search(text) and text.endswith("prop-0123456789ab")


def test_consolidation_items_in_the_queue_read_by_lesson_title(demo) -> None:  # type: ignore[no-untyped-def]
    from test_cli import ok_json

    from brainview.services.project import Project
    from brainview.services.review.queue import page, with_titles
    from brainview.store.discovery import discover

    root, _ = demo
    ok_json("reflect", "consolidate", "-C", str(root))
    with Project.open(discover(root)) as project:
        rows, _ = page(project, sort="newest")
        items = [r for r in rows if r.kind == "prune_reflection"]
        assert items and all(re.search(r"\br-[0-9a-f]{6,}", r.summary) for r in items)
        named = with_titles(project, items)
    for row in named:
        assert row.title_summary and not re.search(r"\br-[0-9a-f]{6,}", row.title_summary)


def test_stdp_rows_and_merges_name_the_other_lesson(demo, project) -> None:  # type: ignore[no-untyped-def]
    from rich.console import Console

    from brainview.services.audit import trail
    from brainview.services.readout.named import lesson_titles
    from brainview.tui.widgets.audit_view import render_trail

    root, info = demo
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    try:
        rid = conn.execute(
            "SELECT pre FROM synapse WHERE pre LIKE 'r-%' AND post LIKE 'r-%' LIMIT 1"
        ).fetchone()[0]
    finally:
        conn.close()
    t = trail(project, rid)
    if not t.weight_changes:  # the demo records STDP only for decided proposals
        from brainview.services.audit import WeightChange

        other = next(r for r in info.reflection_ids if r != rid)
        t.weight_changes.append(
            WeightChange(
                "dec-1", "2026-11-29T00:00:00+00:00", rid, other, "relates_to", 0.4, 0.5, 1
            )
        )
    ends = [e for w in t.weight_changes for e in (w.pre, w.post)]
    titles = lesson_titles(project, ends)
    console = Console(width=200, record=True)
    console.print(render_trail(t, titles=titles))
    section = console.export_text().split("STDP and links")[1].split("merges")[0]
    assert "this lesson" in section and "⟦" in section
    assert not re.search(r"\br-[0-9a-f]{6,} -", section)


def test_the_palette_finds_a_lesson_by_a_title_shown_on_screen(demo, project) -> None:  # type: ignore[no-untyped-def]
    from brainview.core.refs import parse_refs
    from brainview.services.readout.reflections import find_reflections

    root, info = demo
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    try:
        rid, content = conn.execute(
            "SELECT id, content FROM neuron WHERE id = ?", (info.reflection_ids[0],)
        ).fetchone()
    finally:
        conn.close()
    nid = parse_refs(content)[0]
    user = sqlite3.connect(root / ".spikuit" / "circuit.db")
    try:
        (text,) = user.execute("SELECT content FROM neuron WHERE id = ?", (nid,)).fetchone()
    finally:
        user.close()
    title = text.splitlines()[0].lstrip("# ").strip()  # "Tempering — usage"
    hits = find_reflections(project, title)
    assert hits, title
    assert all("[user:" not in shown for _rid, shown in hits)
    assert any(f"⟦{title}" in shown for _rid, shown in hits)


def test_the_recall_box_names_the_proposal_by_titles(demo, project) -> None:  # type: ignore[no-untyped-def]
    """The recall box's header ("for proposal … — link n-e5559… -relates_to→ n-e60b…")
    reads the draft's neurons by title, as the queue row does."""
    from brainview.services.recall.browse import draft_of

    root, _ = demo
    named = 0
    for pid in _pending(root):
        d = detail_service.load(project, pid, DEMO_NOW)
        if not d.neurons or not USER_ID.search(d.summary):
            continue
        shown = draft_of(d).summary
        named += 1
        assert "⟦" in shown and not any(n in shown for n in d.neurons), (pid, shown)
    assert named > 10
