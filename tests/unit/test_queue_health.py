"""Queue health (issue 34, item 1): the pure assessment, the ``[queue]`` config, the
aggregates on a real queue, ``stats --json``, ``proposals list --stale`` and
``proposals health [--notify]`` with a notify command that records its stdin."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from test_cli import agent_db, cli, dump, ok_json, run, user_db
from test_mcp import data, error, session_run

from brainview.config import Config, QueueConfig, parse
from brainview.core.queue_health import QueueCounts, assess
from brainview.demo.generator import DEMO_NOW
from brainview.errors import ConfigError, ExitCode
from brainview.services import review
from brainview.services.metrics.queue_health import queue_health
from brainview.services.project import Project
from brainview.store.discovery import discover

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
KEYS = {
    "pending", "stale", "stale_after_days", "oldest_age_days", "window_days", "arrivals",
    "decisions", "net_growth", "growth_min", "alert", "stale_alert", "growth_alert", "reasons",
}  # fmt: skip


def _assess(**kw: object) -> object:
    counts = {"pending": 0, "stale": 0, "oldest_created_at": None, "arrivals": 0, "decisions": 0}
    return assess(
        QueueCounts(**(counts | kw)),  # type: ignore[arg-type]
        NOW,
        stale_after_days=7,
        window_days=7,
        growth_min=5,
    )


# -- core -----------------------------------------------------------------------------


def test_a_healthy_queue_raises_nothing() -> None:
    h = _assess(pending=3, oldest_created_at=NOW - timedelta(days=2), arrivals=4, decisions=3)
    assert not h.alert and h.reasons == () and h.short() == ""  # type: ignore[attr-defined]
    assert h.oldest_age_days == 2.0  # type: ignore[attr-defined]
    assert set(h.to_json()) == KEYS  # type: ignore[attr-defined]


def test_stale_proposals_raise_an_alert_with_one_line() -> None:
    h = _assess(pending=36, stale=11, oldest_created_at=NOW - timedelta(days=9, hours=22))
    assert h.stale_alert and not h.growth_alert  # type: ignore[attr-defined]
    assert h.reasons == (  # type: ignore[attr-defined]
        "11 of 36 pending proposal(s) waiting more than 7 days (oldest 10 days)",
    )
    assert h.short() == "◷ 11 waiting >7d"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("arrivals", "decisions", "alert"),
    [(9, 5, False), (10, 5, True), (5, 10, False), (0, 0, False), (5, 0, True)],
)
def test_growth_is_arrivals_over_decisions_by_growth_min(
    arrivals: int, decisions: int, alert: bool
) -> None:
    h = _assess(pending=arrivals, arrivals=arrivals, decisions=decisions)
    assert h.growth_alert is alert  # type: ignore[attr-defined]
    if alert:
        net = arrivals - decisions
        assert h.reasons[-1] == (  # type: ignore[attr-defined]
            f"queue grew by {net} in 7 days: {arrivals} arrived, {decisions} decided"
        )
        assert h.short() == f"◷ +{net} in 7d"  # type: ignore[attr-defined]


def test_queue_config_is_typed_and_checked(tmp_path: Path) -> None:
    where = tmp_path / "brainview.toml"
    cfg = parse(
        '[queue]\nstale_after_days = 3\nwindow_days = 14\nnotify_command = ["notify", "-q"]\n',
        where,
    )
    assert cfg.queue == QueueConfig(
        stale_after_days=3, window_days=14, notify_command=["notify", "-q"]
    )
    assert Config().queue.stale_after_days == 7 and Config().review.allow_self_approval is False
    for bad in (
        'notify_command = "mail -s queue team"',  # a shell line: refused, argv only
        "notify_command = []",
        'notify_command = ["ok", 3]',
        "stale_after_days = 0",
        "notify_timeout = 601",
        "stale_days = 3",
    ):
        with pytest.raises(ConfigError, match="queue"):
            parse(f"[queue]\n{bad}\n", where)


# -- the store's aggregates on a real queue ----------------------------------------------


def _age(root: Path, days: dict[str, float]) -> None:
    """Set proposals' ``created_at`` to ``days`` before DEMO_NOW (test setup, raw SQL)."""
    import sqlite3

    conn = sqlite3.connect(agent_db(root))
    with conn:
        for pid, d in days.items():
            at = (DEMO_NOW - timedelta(days=d)).isoformat()
            conn.execute("UPDATE brainview_proposal SET created_at = ? WHERE id = ?", (at, pid))
    conn.close()


def _fresh_ids(info: object) -> list[str]:
    stale = set(info.stale_proposal_ids)  # type: ignore[attr-defined]
    return [p for p in info.proposal_ids if p not in stale]  # type: ignore[attr-defined]


def test_counts_on_the_demo_queue_and_decisions_slow_growth(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    ids = _fresh_ids(info)
    _age(root, {p: 1.0 for p in info.proposal_ids} | {ids[0]: 12.0, ids[1]: 8.5})
    with Project.open(discover(root)) as project:
        before = queue_health(project, DEMO_NOW)
    assert (before.pending, before.stale, before.oldest_age_days) == (36, 2, 12.0)
    assert (before.arrivals, before.decisions) == (34, 0)
    assert before.stale_alert and before.growth_alert
    with Project.open(discover(root), write_agent=True) as project:
        for pid in ids[:5]:
            review.decide(project, pid, "reject", decider="tester", now=DEMO_NOW)
        after = queue_health(project, DEMO_NOW, QueueConfig(growth_min=30))
    assert (after.pending, after.decisions, after.stale) == (31, 5, 0)
    assert not after.alert and after.oldest_age_days == 1.0


# -- the CLI -------------------------------------------------------------------------


def test_stats_json_carries_queue_health(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    out = run("stats", str(root), "--json")
    assert out.returncode == 0, out.stderr
    health = json.loads(out.stdout)["queue_health"]
    assert set(health) == KEYS
    assert health["pending"] == 36 and health["growth_alert"] is True
    assert health["reasons"] and all(isinstance(r, str) for r in health["reasons"])
    human = cli("stats", str(root))
    assert "queue alert: queue grew by" in human.stdout


def test_proposals_list_stale_lists_only_old_pending(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    ids = _fresh_ids(info)
    _age(root, {p: 1.0 for p in info.proposal_ids} | {ids[3]: 9.0, ids[4]: 30.0})
    out = cli("proposals", "list", "--stale", "-C", str(root), "--json")
    assert out.returncode == 0, out.stderr
    listed = json.loads(out.stdout)
    assert [p["id"] for p in listed["proposals"]] == [ids[4], ids[3]]  # oldest first
    (root / ".spikuit" / "brainview.toml").write_text("[queue]\nstale_after_days = 10\n")
    again = json.loads(cli("proposals", "list", "--stale", "-C", str(root), "--json").stdout)
    assert [p["id"] for p in again["proposals"]] == [ids[4]]
    bad = cli("proposals", "list", "--stale", "--status", "accepted", "-C", str(root))
    assert bad.returncode == ExitCode.USAGE and "--stale" in bad.stderr


def _recorder(tmp_path: Path, code: int = 0) -> list[str]:
    """A notify command: a tiny Python script writing its stdin to ``got.json``."""
    script = tmp_path / "notify.py"
    script.write_text(
        "import sys, pathlib\n"
        f"pathlib.Path({str(tmp_path / 'got.json')!r}).write_bytes(sys.stdin.buffer.read())\n"
        "sys.stderr.write('mail server down\\n')\n"
        f"sys.exit({code})\n"
    )
    return [sys.executable, str(script)]


def _configure(root: Path, argv: list[str], extra: str = "") -> None:
    line = "notify_command = " + json.dumps(argv)
    (root / ".spikuit" / "brainview.toml").write_text(f"[queue]\n{line}\n{extra}")


def test_health_notify_runs_the_command_with_the_summary_on_stdin(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    _age(root, {p: 1.0 for p in info.proposal_ids} | {info.proposal_ids[0]: 20.0})
    _configure(root, _recorder(tmp_path))
    before = {db: dump(db) for db in (agent_db(root), user_db(root))}
    out = cli("proposals", "health", "--notify", "--json", "-C", str(root))
    assert out.returncode == 0, out.stderr
    shown = json.loads(out.stdout)
    got = json.loads((tmp_path / "got.json").read_text())
    assert got["queue_health"] == shown["queue_health"]
    assert got["queue_health"]["stale"] == 1 and got["stale_ids"] == [info.proposal_ids[0]]
    assert shown["notified"]["exit_code"] == 0
    assert {db: dump(db) for db in before} == before  # read-only
    text = cli("proposals", "health", "-C", str(root))
    assert "ALERT: 1 of 36 pending proposal(s) waiting more than 7 days" in text.stdout


def test_health_notify_failure_is_one_line_and_its_own_exit_code(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    _configure(root, _recorder(tmp_path, code=3))
    out = cli("proposals", "health", "--notify", "-C", str(root))
    assert out.returncode == ExitCode.NOTIFY == 15
    assert "ALERT: queue grew by" in out.stdout  # the health is printed first
    assert out.stderr.count("\n") == 1 and "exited with 3: mail server down" in out.stderr
    _configure(root, [str(tmp_path / "missing-notifier")])
    missing = cli("proposals", "health", "--notify", "-C", str(root))
    assert missing.returncode == ExitCode.NOTIFY and "could not run" in missing.stderr
    sleeper = [sys.executable, "-c", "import time; time.sleep(30)"]
    _configure(root, sleeper, "notify_timeout = 1\n")
    slow = cli("proposals", "health", "--notify", "-C", str(root))
    assert slow.returncode == ExitCode.NOTIFY and "within 1 s" in slow.stderr
    (root / ".spikuit" / "brainview.toml").write_text("")
    unset = cli("proposals", "health", "--notify", "-C", str(root))
    assert unset.returncode == ExitCode.CONFIG and "notify_command" in unset.stderr


def test_health_notify_without_an_alert_runs_nothing(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    _age(root, {p: 1.0 for p in info.proposal_ids})
    _configure(root, _recorder(tmp_path), "growth_min = 1000\n")
    out = cli("proposals", "health", "--notify", "--json", "-C", str(root))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["notified"] is None
    assert not (tmp_path / "got.json").exists()


# -- MCP -------------------------------------------------------------------------------


def test_mcp_queue_health_is_the_clis_through_the_sdk_client(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    (root / ".spikuit" / "brainview.toml").write_text("[queue]\nstale_after_days = 5\n")

    async def body(s):  # type: ignore[no-untyped-def]
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert tools["queue_health"].annotations.read_only_hint is True
        return data(await s.call_tool("queue_health", {}))

    got = session_run(root, body)
    assert got == ok_json("proposals", "health", "-C", str(root))["queue_health"]
    assert got["stale_after_days"] == 5 and got["stale_alert"] and set(got) == KEYS


def test_mcp_queue_health_without_an_agent_brain_is_not_found(demo) -> None:  # type: ignore[no-untyped-def]
    import shutil

    root, _ = demo
    shutil.rmtree(root / ".spikuit" / "agent")

    async def body(s):  # type: ignore[no-untyped-def]
        return error(await s.call_tool("queue_health", {}))

    text, err = session_run(root, body)
    assert text.startswith("not_found: ") and err["exit_code"] == 3
