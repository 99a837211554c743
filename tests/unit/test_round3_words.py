"""Issue 32's small wording and data frictions: ``outcome show`` is no retry, and no
demo lesson is reviewed before it was created."""

from __future__ import annotations

from typing import Any

from test_cli import agent_db, cli, ok_json, sql
from test_cli_outcome import flags, live

from brainview.demo.generator import DemoSpec


def test_outcome_show_does_not_say_already_recorded(demo: Any) -> None:
    root, _ = demo
    a, b = live(root, 2)
    rec = ok_json(*flags(a, b), "-C", str(root))
    retry = cli(*flags(a, b), "-C", str(root))
    assert retry.stdout.startswith("already recorded:")  # a retry says so
    shown = cli("outcome", "show", "t-1", "-C", str(root))
    assert shown.returncode == 0 and "already recorded" not in shown.stdout
    assert shown.stdout.startswith(f"recorded at {rec['decided_at']}:")


def test_no_demo_lesson_is_reviewed_before_it_was_created(make_demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = make_demo(DemoSpec(history=True), name="demo")  # as `brainview demo` builds it
    early = sql(
        agent_db(root),
        "SELECT n.id, n.created_at, min(s.fired_at) FROM neuron n "
        "JOIN spike s ON s.neuron_id = n.id GROUP BY n.id HAVING min(s.fired_at) < n.created_at",
    )
    assert early == []
    planted = sql(
        agent_db(root),
        "SELECT count(*) FROM neuron WHERE created_at >= ? AND type = 'reflection'",
        "2026-11-28",
    )
    assert planted[0][0] >= 1  # the planted lessons stay recent


def test_a_lesson_saying_a_contrasts_link_helped_supports_a_link() -> None:
    """The demo's own wording: "confused" names the case (two neurons easily confused),
    "helped" says what the link did."""
    from brainview.core.recall_rank import stance

    text = "[user:a] and [user:b] are easily confused; a contrasts link helped the quiz."
    lean, why = stance(text, "add_synapse", "contrasts", ["n-1"], None)
    assert lean == "support" and "helped" in why
    lean, _ = stance(
        "Linking them as contrasts failed: the quiz confused them.",
        "add_synapse",
        "contrasts",
        ["n-1"],
        None,
    )
    assert lean == "oppose"
