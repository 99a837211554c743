"""Agent-brain metrics on the Overview: acceptance, time per decision (MAC), policy
emergence and reflections at risk — numbers plus week-by-week sparklines."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Sparkline, Static

from brainview.core.safe_text import one_line


def _acceptance_by_week(acceptance: list[dict[str, Any]]) -> list[tuple[str, float]]:
    weeks: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for w in acceptance:
        weeks[w["week"]][0] += w["accepted"]
        weeks[w["week"]][1] += w["accepted"] + w["rejected"]
    return [(k, a / n) for k, (a, n) in sorted(weeks.items()) if n]


class MetricsPanel(Vertical):
    """Filled from ``AgentMetrics.to_json()``; shows a plain message until then."""

    def compose(self) -> ComposeResult:
        yield Static(Text("metrics: loading…", style="dim italic"), id="metrics-text")
        yield Static("acceptance rate by week", classes="spark-label")
        yield Sparkline([], id="spark-acceptance")
        yield Static("median seconds per decision by week (MAC)", classes="spark-label")
        yield Sparkline([], id="spark-mac")

    def on_mount(self) -> None:
        for widget in (*self.query(".spark-label"), *self.query(Sparkline)):
            widget.display = False

    def show(self, data: dict[str, Any] | None) -> None:
        """Render the metrics (``None``: no agent brain)."""
        text = self.query_one("#metrics-text", Static)
        if data is None:
            text.update(Text("no agent brain: no metrics", style="italic"))
            return
        lines = Text()
        lines.append("agent metrics\n", style="bold underline")
        acc = _acceptance_by_week(data["acceptance"])
        mac = [w for w in data["decision_time"] if w["median_seconds"] is not None]
        if acc:
            week, rate = acc[-1]
            lines.append(f"acceptance {rate:.0%} in week of {week}")
            skills = [w for w in data["acceptance"] if w["week"] == week]
            detail = ", ".join(
                f"{one_line(w['skill'], 12)} {w['accepted']}/{w['accepted'] + w['rejected']}"
                for w in skills
            )
            lines.append(f" ({detail})\n" if detail else "\n")
        else:
            lines.append("no decisions yet — triage a few and the rates appear here\n")
        if mac:
            lines.append(
                f"MAC {mac[-1]['median_seconds']:.1f} s/decision "
                f"({mac[-1]['decisions']} decision(s) that week)\n"
            )
        policies = data["policies_per_week"]
        lines.append(f"policies {sum(policies.values())}")
        if policies:
            last = sorted(policies)[-1]
            lines.append(f" (latest week {last}: {policies[last]})")
        lines.append("\n")
        risk = data.get("at_risk")
        if risk:
            lines.append(
                f"at risk: {risk['below_now']} below R {risk['threshold']:.2f} now · "
                f"{risk['within_days']} within {risk['days']} d · "
                f"{risk['never_reviewed']} never reviewed"
            )
        text.update(lines)
        # Sparklines only where there is a history to draw (an empty one would mislead).
        for key, values in (
            ("acceptance", [r for _w, r in acc]),
            ("mac", [float(w["median_seconds"]) for w in mac]),
        ):
            spark = self.query_one(f"#spark-{key}", Sparkline)
            spark.data = values
            spark.display = len(values) > 0
        for label, shown in zip(self.query(".spark-label"), (bool(acc), bool(mac)), strict=True):
            label.display = shown
