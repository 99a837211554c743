"""The efficacy report's sentences with numbers are generated from the results (issue
32: the prose had drifted from the tables): the figures in words are the targets'."""

from __future__ import annotations

import json
import re
from pathlib import Path

from brainview.sim.experiment import config_of
from brainview.sim.report import section
from brainview.sim.targets import check

RESULTS = Path(__file__).resolve().parents[2] / "docs" / "efficacy" / "results.json"


def test_the_words_quote_the_targets_table() -> None:
    results = json.loads(RESULTS.read_text(encoding="utf-8"))
    weeks = config_of(results).weeks
    text = section(results, "cmd", "svg")
    words = text.split("### In words", 1)[1].split("###", 1)[0]
    targets = {t.name: t.measured for t in check(results, weeks, config_of(results).poison_week)}
    acceptance = re.search(
        r"([\d.]+) ± [\d.]+ % vs ([\d.]+) ± [\d.]+ %: ([+-][\d.]+) points", targets["acceptance"]
    )
    assert acceptance is not None
    on, off, points = acceptance.groups()
    assert f"accepts {on} %" in words and f"against {off} % without recall" in words
    assert f"({points} points" in words
    repeated = re.search(r"down (\d+) %", targets["repeated mistakes"])
    assert repeated is not None and f"(down {repeated.group(1)} %)" in words
    mac = re.search(r"down (\d+) %", targets["MAC"])
    assert mac is not None and f"(-{mac.group(1)} %)" in words
