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


def test_the_committed_report_is_what_its_results_give(tmp_path: Path) -> None:
    """docs/efficacy.md's generated part (tables, In words, figures' text) is exactly what
    `--from-results docs/efficacy/results.json` writes: prose and tables cannot drift
    from the run they quote."""
    import shutil
    import subprocess
    import sys

    doc = RESULTS.parents[1] / "efficacy.md"
    copy = tmp_path / "efficacy.md"
    shutil.copy(doc, copy)
    (tmp_path / "efficacy").mkdir()  # the figures beside it, as docs/efficacy/
    done = subprocess.run(
        [sys.executable, "-m", "brainview", "simulate",
         "--from-results", "docs/efficacy/results.json",
         "--svg-dir", str(tmp_path / "efficacy"), "--report", str(copy)],
        capture_output=True, text=True, cwd=RESULTS.parents[2],
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert copy.read_text(encoding="utf-8") == doc.read_text(encoding="utf-8")
