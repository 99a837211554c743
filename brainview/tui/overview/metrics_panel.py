"""Agent-brain metrics on the Overview: acceptance (by week, by runtime, over successive
consolidations), time per decision (MAC) by week and by agent-brain age, policy
emergence and reflections at risk — numbers plus sparklines where there is history.

Filled from ``AgentMetrics.to_json()`` (docs/metrics.md). Names from the brain (skills,
runtimes) go through :func:`one_line` into ``rich.text.Text``: never markup.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Sparkline, Static

from brainview.core.safe_text import one_line

SPARKS = (
    (("acceptance", "accept/wk"), ("mac", "MAC s/wk")),
    (("age", "MAC s/age"), ("policies", "policy/wk")),
)
"""Sparkline rows, two cells each: id suffix and label."""
RUNTIMES_SHOWN = 3
"""Runtimes listed by name (most decisions first); the rest are counted."""
NAME_WIDTH = 16


def _acceptance_by_week(acceptance: list[dict[str, Any]]) -> list[tuple[str, float]]:
    weeks: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for w in acceptance:
        weeks[w["week"]][0] += w["accepted"]
        weeks[w["week"]][1] += w["accepted"] + w["rejected"]
    return [(k, a / n) for k, (a, n) in sorted(weeks.items()) if n]


def _outcome_totals(weeks: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """Successes and failures per skill over every week."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for w in weeks:
        out[w["skill"]][0] += w["success"]
        out[w["skill"]][1] += w["failure"]
    return {k: (a, b) for k, (a, b) in sorted(out.items()) if a + b}


def _weekly(counts: dict[str, int], weeks: list[str]) -> list[float]:
    """``counts`` on every Monday from the first to the last of ``weeks`` and ``counts``
    (zeros included: a week without a new policy is data, not a gap)."""
    known = sorted({*weeks, *counts})
    if not known:
        return []
    day, last = date.fromisoformat(known[0]), date.fromisoformat(known[-1])
    out = []
    while day <= last:
        out.append(float(counts.get(day.isoformat(), 0)))
        day += timedelta(days=7)
    return out


def _pct(rate: float | None) -> str:
    return "—" if rate is None else f"{rate:.0%}"


def _secs(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f} s"


def _pad(name: str, width: int) -> str:
    """``name`` cut (with an ellipsis) or padded to ``width`` terminal cells, plus a space."""
    if cell_len(name) > width:
        name = set_cell_size(name, width - 1) + "…"
    return set_cell_size(name, width) + " "


def _runtimes(lines: Text, rows: list[dict[str, Any]]) -> None:
    """A small table: runtime, accepted/decided and rate, MAC, decisions."""
    if not rows:
        return
    ranked = sorted(rows, key=lambda r: (-r["decisions"], r["runtime"]))
    header = f"{'accepted':<12}{'MAC':>9}{'decisions':>11}"
    lines.append(_pad("by runtime", NAME_WIDTH) + header + "\n", style="dim")
    for r in ranked[:RUNTIMES_SHOWN]:
        decided = r["accepted"] + r["rejected"]
        lines.append(_pad(one_line(r["runtime"], 64), NAME_WIDTH))
        lines.append(f"{r['accepted']:>3}/{decided:<3} {_pct(r['rate']):>4}")
        lines.append(f"{_secs(r['median_seconds']):>9}{r['decisions']:>11}\n")
    if len(ranked) > RUNTIMES_SHOWN:
        lines.append(f"… {len(ranked) - RUNTIMES_SHOWN} more runtime(s)\n", style="dim")


def _deciders(lines: Text, rows: list[dict[str, Any]]) -> None:
    """Who decided (a team's split): decider, accepted/decided and rate, mean seconds on
    screen, decisions — shown once two or more people decided."""
    if len(rows) < 2:
        return
    ranked = sorted(rows, key=lambda r: (-r["decisions"], r["decider"]))
    header = f"{'accepted':<12}{'mean':>9}{'decisions':>11}"
    lines.append(_pad("by decider", NAME_WIDTH) + header + "\n", style="dim")
    for r in ranked[:RUNTIMES_SHOWN]:
        decided = r["accepted"] + r["rejected"]
        lines.append(_pad(one_line(r["decider"], 64), NAME_WIDTH))
        lines.append(f"{r['accepted']:>3}/{decided:<3} {_pct(r['rate']):>4}")
        lines.append(f"{_secs(r['mean_seconds']):>9}{r['decisions']:>11}\n")
    if len(ranked) > RUNTIMES_SHOWN:
        lines.append(f"… {len(ranked) - RUNTIMES_SHOWN} more decider(s)\n", style="dim")


def _consolidations(lines: Text, plans: list[dict[str, Any]]) -> None:
    """Acceptance of the last three consolidations, oldest first; the last one's items."""
    if not plans:
        return
    last = plans[-1]
    lines.append("consolidations ")
    lines.append(" → ".join(_pct(c["rate"]) for c in plans[-3:]))
    lines.append(
        f" (last {last['accepted']}/{last['accepted'] + last['rejected']}, "
        f"{last['pending']}/{last['n_items']} pending)\n"
    )


class MetricsPanel(Vertical):
    """Shows a plain message until :meth:`show` gets the metrics."""

    DEFAULT_CSS = """
    MetricsPanel .spark-row {
        height: 1;
    }
    MetricsPanel .spark-cell {
        width: 1fr;
        height: 1;
        padding-right: 1;
    }
    MetricsPanel .spark-cell .spark-label {
        width: 10;
    }
    MetricsPanel .spark-cell Sparkline {
        width: 1fr;
    }
    """

    def compose(self) -> ComposeResult:
        # The sparkline rows come with the first metrics (:meth:`_sparks`): fourteen
        # hidden widgets less to style and lay out before the console's first frame.
        yield Static(Text("metrics: loading…", style="dim italic"), id="metrics-text")

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
        ages = [a for a in data.get("decision_time_by_age", []) if a["median_seconds"] is not None]
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
        outcomes = _outcome_totals(data.get("outcomes", []))
        if outcomes:  # tutor / QABot: not maintainer decisions, shown next to acceptance
            lines.append(
                "outcomes "
                + ", ".join(
                    f"{one_line(skill, 12)} {ok}/{ok + bad} succeeded ({_pct(ok / (ok + bad))})"
                    for skill, (ok, bad) in outcomes.items()
                )
                + "\n"
            )
        if mac:
            lines.append(
                f"MAC {mac[-1]['median_seconds']:.1f} s/decision ({mac[-1]['decisions']} that week)"
            )
            if len(ages) > 1:
                lines.append(
                    f"; by age {ages[0]['median_seconds']:.0f} → {ages[-1]['median_seconds']:.0f} s"
                )
            lines.append("\n")
        _runtimes(lines, data.get("by_runtime", []))
        _deciders(lines, data.get("by_decider", []))
        _consolidations(lines, data.get("consolidations", []))
        policies = data["policies_per_week"]
        lines.append(f"policies {sum(policies.values())}")
        if policies:
            latest = sorted(policies)[-1]
            lines.append(f" (latest week {latest}: {policies[latest]})")
        accepted = data.get("policies_accepted_per_week", {})
        if accepted:
            lines.append(f" · {sum(accepted.values())} accepted")
        lines.append("\n")
        risk = data.get("at_risk")
        if risk:
            lines.append(
                f"at risk: {risk['below_now']} below R {risk['threshold']:.2f} now · "
                f"{risk['within_days']} within {risk['days']} d · "
                f"{risk['never_reviewed']} never reviewed"
            )
        text.update(lines)
        weeks = [w["week"] for w in data["decision_time"]]
        self._sparks(
            {
                "acceptance": [r for _w, r in acc],
                "mac": [float(w["median_seconds"]) for w in mac],
                "age": [float(a["median_seconds"]) for a in ages],
                "policies": _weekly(accepted, weeks) if accepted else [],
            }
        )

    def _sparks(self, series: dict[str, list[float]]) -> None:
        # Only where there is a history to draw (an empty one would mislead).
        if not self.query(".spark-row"):
            self.mount_all(_rows(series))
            return
        for key, values in series.items():
            spark = self.query_one(f"#spark-{key}", Sparkline)
            spark.data = values
            _show_cell(self.query_one(f"#cell-{key}"), spark, values)
        for k, cells in enumerate(SPARKS):
            self.query_one(f"#spark-row-{k}").display = _row_shown(series, cells)


def _rows(series: dict[str, list[float]]) -> list[Horizontal]:
    """The sparkline rows, drawn from ``series``: a cell without history is hidden (its
    row's other cell keeps its half), a row without any is not displayed."""
    rows = []
    for k, cells in enumerate(SPARKS):
        kids = []
        for key, label in cells:
            spark = Sparkline(series[key], id=f"spark-{key}")
            cell = Horizontal(
                Static(label, classes="spark-label"), spark, id=f"cell-{key}", classes="spark-cell"
            )
            _show_cell(cell, spark, series[key])
            kids.append(cell)
        row = Horizontal(*kids, id=f"spark-row-{k}", classes="spark-row")
        row.display = _row_shown(series, cells)
        rows.append(row)
    return rows


def _show_cell(cell: Widget, spark: Sparkline, values: list[float]) -> None:
    """A cell shows only a history to draw (an empty one would mislead); hidden, not
    removed: the other cell of its row keeps its half."""
    spark.display = bool(values)
    cell.visible = bool(values)


def _row_shown(series: dict[str, list[float]], cells: Sequence[tuple[str, str]]) -> bool:
    """A row is displayed when one of its cells has a history."""
    return any(series[key] for key, _label in cells)
