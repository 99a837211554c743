"""The Overview's metrics panel: the seed's numbers from a scripted history, compact
sparklines, and brain text (skills, runtimes) shown inert."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from test_hostile_rendering import BOLD, CLICK, LINK, assert_inert
from test_metrics_seed import _metrics, scripted  # noqa: F401 - the fixture is used below
from textual.app import App, ComposeResult
from textual.widgets import Sparkline

from brainview.tui.overview.metrics_panel import MetricsPanel


class PanelApp(App[None]):
    """Just the panel."""

    def compose(self) -> ComposeResult:
        yield MetricsPanel(id="agent-metrics")


def render(
    data: dict[str, Any] | None, check: Callable[[PanelApp], Awaitable[None]], width: int = 58
) -> None:
    """Show ``data`` in a fresh panel ``width`` cells wide, then run ``check``."""

    async def main() -> None:
        app = PanelApp()
        async with app.run_test(size=(width, 30)) as pilot:
            app.query_one(MetricsPanel).show(data)
            await pilot.pause()
            await check(app)

    asyncio.run(main())


def text_of(app: PanelApp) -> str:
    return str(app.query_one("#metrics-text").render())


def test_panel_shows_the_seed_metrics(scripted) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    data = _metrics(scripted).to_json()

    async def check(app: PanelApp) -> None:
        lines = text_of(app).splitlines()
        assert "acceptance 100% in week of 2026-11-30 (curator 1/1)" in lines
        assert "MAC 15.0 s/decision (1 that week); by age 25 → 20 s" in lines
        runtime = [line.split() for line in lines if line.startswith(("model-", "unknown"))]
        assert runtime == [
            ["model-a", "3/4", "75%", "50.0", "s", "4"],
            ["model-b", "2/3", "67%", "20.0", "s", "3"],
            ["unknown", "1/1", "100%", "10.0", "s", "2"],
        ]
        assert "consolidations 33% → 100% (last 2/2, 2/4 pending)" in lines
        assert "policies 2 (latest week 2026-11-09: 2) · 2 accepted" in lines
        sparks = {s.id: list(s.data or []) for s in app.query(Sparkline)}
        assert sparks["spark-mac"] == [50, 10, 35, 15]
        assert sparks["spark-age"] == [25, 30, 20]
        # A week without an accepted summary is a zero, not a gap.
        assert sparks["spark-policies"] == [0, 0, 1, 1]
        assert all(app.query_one(f"#{k}").display for k in sparks)

    render(data, check)


def test_panel_without_history_hides_the_sparklines() -> None:
    data = {"acceptance": [], "decision_time": [], "policies_per_week": {}, "at_risk": None}

    async def check(app: PanelApp) -> None:
        assert "no decisions yet" in text_of(app)
        assert not any(row.display for row in app.query(".spark-row"))

    render(data, check)


def test_runtime_and_skill_names_are_inert() -> None:
    hostile = CLICK + "\x1b]52;c;cm0=\x07" + LINK + "\x9b31m" + BOLD
    week = "2026-11-30"
    data = {
        "acceptance": [{"week": week, "skill": hostile, "accepted": 1, "rejected": 0}],
        "decision_time": [{"week": week, "decisions": 1, "median_seconds": 3.0}],
        "policies_per_week": {},
        "at_risk": None,
        "by_runtime": [
            {"runtime": hostile, "decisions": 1, "median_seconds": 3.0, "accepted": 1}
            | {"rejected": 0, "dismissed": 0, "rate": 1.0},
            {"runtime": "日本語のとても長いランタイム名です", "decisions": 1}
            | {"median_seconds": None, "accepted": 0, "rejected": 0, "dismissed": 1, "rate": None},
        ],
    }

    async def check(app: PanelApp) -> None:
        text = assert_inert(app, "[@click=app.", "日本語")  # type: ignore[arg-type]
        rows = [line for line in text.splitlines() if "日本語" in line]
        # Cut to the name column (16 cells, ellipsis included), the table stays aligned.
        assert rows and "…" in rows[0] and rows[0].rstrip().endswith("1")

    render(data, check)


def test_panel_shows_tutor_and_qabot_success_next_to_acceptance(scripted) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    data = _metrics(scripted).to_json()
    data["outcomes"] = [
        {"week": "2026-11-23", "skill": "tutor", "success": 1, "failure": 1, "rate": 0.5},
        {"week": "2026-11-30", "skill": "qabot", "success": 0, "failure": 2, "rate": 0.0},
        {"week": "2026-11-30", "skill": "tutor", "success": 2, "failure": 0, "rate": 1.0},
    ]

    async def check(app: PanelApp) -> None:
        lines = text_of(app).splitlines()
        i = lines.index("acceptance 100% in week of 2026-11-30 (curator 1/1)")
        assert lines[i + 1] == "outcomes qabot 0/2 succeeded (0%), tutor 3/4 succeeded (75%)"

    render(data, check, width=80)
