"""The guide's and README's getting-started text matches what ``brainview demo`` writes
and how it is run (numbers measured, not remembered)."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from brainview.demo.generator import DemoSpec
from brainview.services.metrics.stats import project_stats
from brainview.services.project import Project
from brainview.store.discovery import discover

WORDS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}
ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "guide.md").read_text()
README = (ROOT / "README.md").read_text()


def _shell_blocks(text: str) -> list[str]:
    return [b.strip() for b in re.findall(r"```sh\n(.*?)```", text, flags=re.S)]


def test_guide_counts_are_the_demo_s(make_demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = make_demo(DemoSpec(history=True), name="demo")  # as `brainview demo` builds it
    with Project.open(discover(root)) as project:
        stats = project_stats(project)
    user, agent, queue = stats["user"], stats["agent"], stats["proposals"]
    rejected = queue["rejected"]
    intro = " ".join(GUIDE.split("## Job 1")[0].split())
    domains = WORDS[len(user["domains"])]
    assert f"a {user['neurons']}-neuron user brain in {domains} domains" in intro
    assert f"a {agent['reflections']}-reflection agent brain" in intro
    assert f"150 lessons plus one written by each of the {rejected} past rejections" in intro
    assert agent["reflections"] == 150 + rejected
    assert f"{agent['policies']} policies" in intro
    assert f"{queue['pending']} pending curator proposals ({queue['stale']} of them stale)" in intro


def test_guide_says_where_the_demo_goes() -> None:
    intro = " ".join(GUIDE.split("## Job 1")[0].split())
    assert "a temporary directory" not in intro
    assert f"{Path(tempfile.gettempdir()) / 'brainview-demo'}" in intro or "brainview-demo" in intro


def test_quick_start_runs_with_any_python3_from_3_11() -> None:
    blocks = _shell_blocks(README.split("## Using it")[0])
    assert len(blocks) == 2, "exactly two quick-start commands"
    for block in (*blocks, *_shell_blocks(GUIDE.split("## Job 1")[0])):
        assert block.startswith("python3 -m venv "), block
    ci = (ROOT / ".ci" / "run").read_text()
    assert blocks[1] in ci, "CI runs exactly the README's test command"
