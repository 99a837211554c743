"""One community numbering everywhere (issue 32): the console counts from 1, so do the
CLI and the consolidation plan's rationales; the isolated reflections are named in
words, never ``#0`` or ``#-1``."""

from __future__ import annotations

import re

from test_cli import cli, ok_json

from brainview.core.community_label import community_name, partition_number
from brainview.errors import ExitCode


def test_the_numbering_helpers() -> None:
    assert community_name(0) == "community #1" and community_name(11) == "community #12"
    assert community_name(-1) == "unclustered reflections"
    assert partition_number("1") == 0 and partition_number("#12") == 11
    assert partition_number("unclustered") == -1
    assert partition_number("0") is None and partition_number("-1") is None


def test_cli_lists_and_shows_from_one(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    human = cli("communities", "list", "-C", str(root)).stdout
    assert human.startswith("#1 ") and "#0 " not in human and "#-1" not in human
    assert "\nunclustered " in human
    data = ok_json("communities", "list", "-C", str(root))
    numbers = [r["community"] for r in data["communities"]]
    assert numbers[0] == 1 and 0 not in numbers and -1 not in numbers and None in numbers
    first = ok_json("communities", "show", "1", "-C", str(root))
    assert first["community"] == 1 and first["total"] == data["communities"][0]["size"]
    shown = cli("communities", "show", "unclustered", "-C", str(root))
    assert shown.returncode == 0 and "of unclustered reflections" in shown.stdout
    bad = cli("communities", "show", "0", "-C", str(root))
    assert bad.returncode == int(ExitCode.USAGE) and "from 1" in bad.stderr


def test_plan_rationales_count_from_one(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    out = ok_json("reflect", "consolidate", "--dry-run", "-C", str(root))
    text = str(out)
    named = [int(n) for n in re.findall(r"[Cc]ommunity #(-?\d+)", text)]
    assert named and min(named) >= 1, named
