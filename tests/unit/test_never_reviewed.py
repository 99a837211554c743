"""A lesson never reviewed has no retrievability: ``null`` in every JSON view and
``new`` in every table — never ``0.0`` / ``R=0.00`` (which reads as "forgotten")."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli import cli
from test_learnings import agent_sql, day, tree


def test_an_unreviewed_lesson_shows_no_r_anywhere(tmp_path: Path) -> None:
    ws, _root = tree(tmp_path, {"corrections.md": f"- [{day(2)}] used tabs → spaces\n".encode()})
    (rid,) = agent_sql(ws, "SELECT neuron_id FROM brainview_learning")[0]
    listed = json.loads(cli("reflect", "list", "-C", str(ws), "--json").stdout)
    (row,) = [r for r in listed["reflections"] if r["id"] == rid]
    assert row["retrievability"] is None and row["last_review"] is None
    shown = json.loads(cli("reflect", "inspect", rid, "-C", str(ws), "--json").stdout)
    assert shown["retrievability"] is None
    assert shown["card"] is None or shown["card"]["retrievability"] is None
    human = cli("reflect", "list", "-C", str(ws)).stdout
    line = next(x for x in human.splitlines() if x.startswith(rid))
    assert "R=new" in line and "R=0.00" not in line
    inspected = cli("reflect", "inspect", rid, "-C", str(ws)).stdout
    assert "R now=0.00" not in inspected


def test_proposals_show_gives_a_consulted_new_lesson_no_r(tmp_path: Path) -> None:
    from test_learnings import HOT_MD, pending, plan

    ws, _root = tree(tmp_path, {"HOT.md": HOT_MD})
    plan(ws)
    (pid,) = pending(ws)
    data = json.loads(cli("proposals", "show", pid, "-C", str(ws), "--json").stdout)
    (consulted,) = data["consulted"]
    assert consulted["retrievability"] is None
    human = cli("proposals", "show", pid, "-C", str(ws)).stdout
    assert "R=new" in human and "R=0.00" not in human
