"""The efficacy simulation: its parts, the smoke test of the loop's direction, the CLI.

The smoke test runs two simulated weeks of loop on and loop off on one seed and asserts
the direction only (loop on accepts more, repeats fewer mistakes).  It must not pass
when the loop is disabled: :func:`direction` is asserted to *fail* with recall off, with
the decision path writing no rejection lessons, and with neither lessons nor grades.
(With grades alone off the direction still holds over two weeks: the lessons' text
carries the early learning; grades refine it — docs/efficacy.md.)
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from test_cli import cli, run

from brainview.commands.tree import SIM_ARMS
from brainview.demo import sim_brains
from brainview.demo.generator import DemoSpec
from brainview.services.recall.result import Hit
from brainview.sim import report
from brainview.sim.arms import ARMS, CHECKS, SimConfig
from brainview.sim.curator import weigh
from brainview.sim.drafts import draft, rewrite
from brainview.sim.experiment import acceptance_over
from brainview.sim.maintainer import Maintainer
from brainview.sim.run import START, ArmRun, run_arm
from brainview.sim.texts import REASONS
from brainview.sim.world import KINDS, MISTAKES, World, fresh_domains

SMOKE = SimConfig(weeks=2, drafts_per_day=4, user_neurons=200)
SEED = 5


def direction(on: ArmRun, off: ArmRun) -> None:
    """Loop on beats loop off: more accepted, fewer repeated mistakes (over the run)."""
    acc_on, acc_off = acceptance_over(on.to_json()), acceptance_over(off.to_json())
    assert acc_on is not None and acc_off is not None
    assert acc_on > acc_off, f"acceptance: loop on {acc_on:.2f} vs off {acc_off:.2f}"
    rep_on = sum(w.repeated for w in on.weeks)
    rep_off = sum(w.repeated for w in off.weeks)
    assert rep_on < rep_off, f"repeated mistakes: loop on {rep_on} vs off {rep_off}"


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ArmRun]:
    base = tmp_path_factory.mktemp("sim")
    return {name: run_arm(ARMS[name], SEED, SMOKE, base / name) for name in ("off", "on")}


def test_smoke_loop_on_beats_loop_off(smoke: dict[str, ArmRun]) -> None:
    direction(smoke["on"], smoke["off"])
    on = smoke["on"]
    assert sum(w.drafts for w in on.weeks) == sum(w.drafts for w in smoke["off"].weeks)
    assert sum(w.mistakes_caught for w in on.weeks) > 0
    assert sum(w.mistakes_caught for w in smoke["off"].weeks) == 0
    # The real metrics agree with the simulation's own count.
    curator = [r for r in on.metrics["acceptance"] if r["skill"] == "curator"]
    assert [r["accepted"] for r in curator] == [w.accepted for w in on.weeks]
    assert [r["rejected"] for r in curator] == [w.rejected for w in on.weeks]


@pytest.mark.parametrize(
    "arm",
    [
        replace(ARMS["on"], name="recall-off", recall=False),
        replace(ARMS["on"], name="lessons-off", lessons=False),
        CHECKS["no-feedback"],
    ],
    ids=["recall off", "no rejection lessons", "no lessons, no grades"],
)
def test_smoke_fails_when_the_loop_is_disabled(
    smoke: dict[str, ArmRun], arm: Any, tmp_path: Path
) -> None:
    disabled = run_arm(arm, SEED, SMOKE, tmp_path)
    with pytest.raises(AssertionError):
        direction(disabled, smoke["off"])
    # Without feedback the curator behaves exactly as with the loop off.
    assert [w.accepted for w in disabled.weeks] == [w.accepted for w in smoke["off"].weeks]


def test_a_seed_reproduces_its_run(smoke: dict[str, ArmRun], tmp_path: Path) -> None:
    again = run_arm(ARMS["on"], SEED, SMOKE, tmp_path)
    first = smoke["on"].to_json()
    second = again.to_json()
    for doc in (first, second):
        doc.pop("seconds")
    assert first == second


# -- the world, the curator's reading, the maintainer ------------------------------------


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    root = tmp_path_factory.mktemp("world")
    spec = DemoSpec(user_neurons=120, reflections=0, proposals=0, seed=3)
    brains = sim_brains.build(root, spec, fresh_domains(START, 4))
    return World(brains, 3, START)


def test_the_agent_brain_starts_empty_and_fresh_domains_appear_on_time(world: World) -> None:
    born = world.brains.domain_born
    assert born["knitting"] < START < born["chess"] <= START + timedelta(weeks=4)
    assert all(n.created_at <= START for n in world.visible(START))
    later = {n.domain for n in world.visible(START + timedelta(weeks=2))}
    assert "chess" in later and "chess" not in {n.domain for n in world.visible(START)}


def test_every_family_draws_candidates_of_itself(world: World) -> None:
    at = START + timedelta(days=10)
    world.study_week(START)
    world.study_week(START + timedelta(weeks=1))
    for mistake, good in KINDS.values():
        for family in (mistake, good):
            d = draft(world, family, random.Random(family), at, 1)
            assert d is not None, family
            assert world.family_of(d.kind, d.params, at) == family
            assert "{" not in d.rationale and family not in d.rationale


def test_a_rewritten_merge_is_an_extends_link_in_the_same_domain(world: World) -> None:
    d = draft(world, "merge_example", random.Random(1), START, 1)
    assert d is not None
    alt = rewrite(world, d, START)
    assert alt is not None and alt.kind == "add_synapse" and alt.params["type"] == "extends"
    assert alt.family == "link_in_domain" and alt.rewritten_from == "merge_example"
    assert rewrite(world, replace(d, kind="retire_neuron"), START) is None


def test_an_accepted_change_is_not_drawn_again(world: World) -> None:
    d = draft(world, "retire_dormant", random.Random(2), START, 1)
    assert d is not None
    world.accepted(d.kind, d.params)
    assert d.params["neuron"] not in {n.id for n in world.visible(START)}


def _hit(words: list[str], refs: list[str], score: float = 0.8) -> Hit:
    return Hit("r-1", 1, score, "curator", "live", "", 1.0, 1.0, 0.0, 0.9, words, refs)


def test_the_curator_weighs_a_hit_by_what_it_shares_with_this_draft() -> None:
    own, refs = {"example", "worked", "concept", "functor"}, {"n-a", "n-b"}
    assert weigh(_hit(["example", "worked"], []), own, refs, set(), 0.25) == pytest.approx(0.4)
    assert weigh(_hit(["merge"], ["n-a", "n-b"]), own, refs, set(), 0.25) == pytest.approx(0.8)
    assert weigh(_hit(["merge"], ["n-a"]), own, refs, set(), 0.25) == pytest.approx(0.4)
    assert weigh(_hit(["example"], []), own, refs, {"r-1"}, 0.25) == pytest.approx(0.25)


def test_the_maintainer_rejects_mistakes_in_its_own_words() -> None:
    m = Maintainer(1, SimConfig(noise=0.0))
    for family in MISTAKES:
        v = m.decide(f"p-{family}", family, 0)
        assert v.verdict == "reject" and v.reason in REASONS[family]
        assert family not in (v.reason or "") and v.seconds > 0
    assert m.decide("p-good", "merge_duplicate", 3).verdict == "accept"
    assert m.decide("p-x", "merge_example", 2) == m.decide("p-x", "merge_example", 2)
    noisy = Maintainer(1, SimConfig(noise=0.5))
    verdicts = {noisy.decide(f"p-{i}", "merge_example", 0).verdict for i in range(40)}
    assert verdicts == {"accept", "reject"}


def test_the_cli_arm_list_mirrors_the_arms() -> None:
    assert SIM_ARMS.split(",") == list(ARMS)


# -- the report and the command ----------------------------------------------------------


@pytest.fixture
def results_file(smoke: dict[str, ArmRun], tmp_path: Path) -> Path:
    data = {
        "config": SMOKE.to_json(),
        "seeds": [SEED],
        "arms": {n: {"label": ARMS[n].label, "runs": [smoke[n].to_json()]} for n in ("off", "on")},
        "seconds": 1.0,
        "command": "brainview simulate --arms off,on --seeds 1",
    }
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data))
    return path


def test_report_from_results_keeps_the_hand_written_text(
    results_file: Path, tmp_path: Path
) -> None:
    doc = tmp_path / "efficacy.md"
    doc.write_text(f"# Title\n\nintro\n\n{report.BEGIN}\nold\n{report.END}\n\n## Analysis\nkept\n")
    figs = tmp_path / "figs"
    figs.mkdir()
    out = run("simulate", "--from-results", str(results_file), "--report", str(doc),
              "--svg-dir", str(figs), "--plot", "acceptance")  # fmt: skip
    assert out.returncode == 0, out.stderr
    text = doc.read_text()
    assert text.startswith("# Title\n\nintro\n\n") and text.endswith("## Analysis\nkept\n")
    assert "old" not in text and "brainview simulate --arms off,on --seeds 1" in text
    assert "![Acceptance rate by week](figs/acceptance.svg)" in text
    svg = (figs / "acceptance.svg").read_text()
    assert svg.startswith("<svg") and "loop on" in svg and "reproduce" in svg
    assert "Acceptance rate by week" in out.stdout and "acceptance:" in out.stdout


def test_json_summary_from_results(results_file: Path) -> None:
    out = cli("simulate", "--from-results", str(results_file), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    acc = data["arms"]["on"]["series"]["acceptance"]
    assert len(acc) == 2 and acc[0]["n"] == 1
    assert {t["name"] for t in data["targets"]} >= {"acceptance", "repeated mistakes"}


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["--weeks", "1"], 2, "--weeks must be between 2 and 52"),
        (["--arms", "on,bogus"], 2, "--arms: unknown arm 'bogus'"),
        (["--plot", "pie"], 2, "--plot: unknown figure 'pie'"),
        (["--noise", "0.9"], 2, "--noise must be between 0 and 0.5"),
        (["--svg-dir", "/nonexistent/dir"], 3, "--svg-dir: no such directory"),
        (["--from-results", "/nonexistent.json"], 3, "no such file"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(
    argv: list[str], code: int, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    out = cli("simulate", *argv)
    assert out.returncode == code and message in out.stderr and "Traceback" not in out.stderr
    assert list(tmp_path.iterdir()) == []


def test_results_that_are_not_results_are_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"arms": 1}')
    out = run("simulate", "--from-results", str(bad))  # a real process: one line, exit 4
    assert out.returncode == 4 and "not the results of brainview simulate" in out.stderr


def test_labels_from_a_results_file_are_shown_inert(results_file: Path) -> None:
    data = json.loads(results_file.read_text())
    data["arms"]["on"]["label"] = "on\x1b]52;c;cm0=\x07 [bold]x[/bold] | y"
    results_file.write_text(json.dumps(data))
    out = cli("simulate", "--from-results", str(results_file), "--plot", "acceptance")
    assert out.returncode == 0, out.stderr
    assert "\x1b]52" not in out.stdout and "\x07" not in out.stdout
    lines = report.lines_for(report.FIGURES[0], data, 2)
    assert all("\x1b" not in k and "|" not in k for k in lines)
