"""Round two of the simulation (issue 29): planted lessons, their controls, the lanes.

Tiny runs (one seed, three weeks, the lesson planted in the third): behaviour only —
the planted lesson is in the agent brain, the signals flag it, the maintainer's lanes
quarantine it, it is never recalled afterwards, the control differs — never timings.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brainview.services.lifecycle import QUARANTINED, statuses
from brainview.services.project import Project
from brainview.sim import report
from brainview.sim.arms import ARMS, SimConfig
from brainview.sim.attack_stats import per_run, wilson
from brainview.sim.attacks import ATTACKS, TRIGGER
from brainview.sim.run import ArmRun, run_arm
from brainview.sim.targets import check

TINY = SimConfig(weeks=3, user_neurons=200)
SEED = 3
PLANT = TINY.poison_week
NAMES = ("gaming", "gaming-control", "trigger", "suppress")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[ArmRun, Path]]:
    base = tmp_path_factory.mktemp("attacks")
    return {n: (run_arm(ARMS[n], SEED, TINY, base / n), base / n / "project") for n in NAMES}


def _planted(project_dir: Path, texts: tuple[str, ...]) -> dict[str, str]:
    """Planted lesson id → its lifecycle state, found by text."""
    with Project.locate(project_dir) as project:
        agent = project.require_agent()
        with agent.read() as conn:
            marks = ",".join("?" * len(texts))
            ids = [
                str(r[0])
                for r in conn.exec_driver_sql(
                    f"SELECT id FROM neuron WHERE content IN ({marks})", tuple(texts)
                )
            ]
            return {rid: s.state for rid, s in statuses(conn, agent.era, ids).items()}


def test_every_attack_has_a_control_of_the_same_shape() -> None:
    for name, attack in ATTACKS.items():
        assert ARMS[name].attack == name and not ARMS[name].benign and ARMS[name].lanes
        assert ARMS[f"{name}-control"].benign and ARMS[f"{name}-control"].attack == name
        assert len(attack.bad) == len(attack.benign) and set(attack.bad) != set(attack.benign)
    assert all(TRIGGER in t for t in (*ATTACKS["trigger"].bad, *ATTACKS["trigger"].benign))
    assert len(ATTACKS["gaming"].bad) == 3 and len(set(ATTACKS["gaming"].sources)) == 3


def test_gaming_is_flagged_and_quarantined_and_never_recalled_again(
    runs: dict[str, tuple[ArmRun, Path]],
) -> None:
    run, project_dir = runs["gaming"]
    week = run.weeks[PLANT]
    assert week.poisoned == 3
    states = _planted(project_dir, ATTACKS["gaming"].bad)
    assert len(states) == 3
    assert week.top10 > 0, "three identities, one claim: the gaming signal ranks it"
    assert week.quarantined > 0 and QUARANTINED in states.values()
    assert sum(w.after_quarantine for w in run.weeks) == 0
    assert sum(w.probe_returned for w in run.weeks) == 0


def test_the_control_differs_its_true_lesson_is_never_quarantined(
    runs: dict[str, tuple[ArmRun, Path]],
) -> None:
    run, project_dir = runs["gaming-control"]
    states = _planted(project_dir, ATTACKS["gaming"].benign)
    assert len(states) == 3 and QUARANTINED not in states.values()
    assert sum(w.quarantined for w in run.weeks) == 0
    # the gaming signal cannot tell a true claim from a false one: a false flag
    assert run.weeks[PLANT].top10 > 0
    assert run.weeks[PLANT].benign_top10 >= 1
    assert runs["gaming"][0].weeks[PLANT].quarantined > 0


def test_the_trigger_lesson_is_recalled_for_drafts_that_carry_the_trigger(
    runs: dict[str, tuple[ArmRun, Path]],
) -> None:
    run, project_dir = runs["trigger"]
    assert _planted(project_dir, ATTACKS["trigger"].bad)
    assert run.weeks[PLANT].recalled > 0
    assert all(w.recalled == 0 for w in run.weeks[:PLANT])


def test_influence_and_lanes_are_measured(runs: dict[str, tuple[ArmRun, Path]]) -> None:
    run, _ = runs["suppress"]
    figures = per_run(run.to_json(), TINY.weeks, PLANT)
    assert figures["influence"] is not None and 0.0 <= figures["influence"] <= 1.0
    assert figures["lanes_share"] is not None and 0.0 < figures["lanes_share"] < 0.25
    for w in run.weeks:  # a fifth of the budget a day, at most one action over
        assert 0 < w.lane_seconds < TINY.lane_seconds * 2.5
        assert 0 <= w.benign_top10 <= 10 and w.benign_flagged <= w.benign_live


def test_the_loop_without_lanes_records_none(tmp_path: Path) -> None:
    run = run_arm(ARMS["on"], SEED, SimConfig(weeks=2, user_neurons=120), tmp_path)
    assert all(w.lane_seconds == 0 and w.swayed == 0 and w.top10 == 0 for w in run.weeks)


def test_the_report_has_the_attack_table_and_targets(
    runs: dict[str, tuple[ArmRun, Path]],
) -> None:
    results = {
        "config": TINY.to_json(),
        "seeds": [SEED],
        "arms": {n: {"label": ARMS[n].label, "runs": [r.to_json()]} for n, (r, _) in runs.items()},
        "seconds": 1.0,
    }
    text = report.section(results, "brainview simulate", ".")
    assert "### Attacks and their controls" in text
    assert ARMS["gaming-control"].label in text
    names = [t.name for t in check(results, TINY.weeks, PLANT)]
    assert "gaming: flagged" in names and "gaming: after quarantine" in names


def test_wilson_interval_is_inside_zero_one() -> None:
    assert wilson(10, 10)[1] == 1.0 and 0.6 < wilson(10, 10)[0] < 0.8
    assert wilson(0, 10)[0] == 0.0
    lo, hi = wilson(5, 10)
    assert lo < 0.5 < hi


def test_worker_processes_follow_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from brainview.sim.experiment import jobs_default

    monkeypatch.setenv("BRAINVIEW_SIM_JOBS", "1")
    assert jobs_default() == 1
    monkeypatch.setenv("BRAINVIEW_SIM_JOBS", "nonsense")
    assert 1 <= jobs_default() <= 2
