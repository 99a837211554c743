"""Table cells for the communities screen (clusters, members, fading list).

Every string from the brain goes through :mod:`brainview.core.safe_text` into ``Text``
objects (``DataTable`` parses plain strings as markup). Meaning never by colour alone:
✓ strong / ✗ miss, ⛨ kept / ↓ let go, ⚠ below threshold; a reflection that is not live
has its state before its title (⚠ challenged, ⊘ invalidated, ⊘ retired).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from brainview.core.safe_text import one_line
from brainview.tui.widgets.suspicion import state_mark

if TYPE_CHECKING:
    from brainview.services.communities import CommunityData, CommunityRow, MemberRow
    from brainview.services.communities.curves import FadingList, FadingRow

SKILL_SHORT = {"curator": "c", "tutor": "t", "qabot": "q", "learn": "l"}
DECISION_MARK = {"rescue": "⛨ kept", "let_go": "↓ let go"}
CLUSTER_COLUMNS = (
    ("#", "number", 3),
    ("label", "label", 0),
    ("size", "size", 5),
    ("skills", "skills", 10),
    ("R̄ now", "r", 5),
    ("low", "below", 3),
    ("✓/✗", "grades", 7),
    ("policy", "policy", 6),
)
"""(label, key, width; 0 = takes what is left)."""
SPIKUIT_COLUMN = ("spkt", "spikuit", 8)
"""Spikuit's own community, only where the brain has one."""
MEMBER_COLUMNS = (
    ("reflection", "title", 0),
    ("skill", "skill", 7),
    ("R now", "r", 5),
    ("S (d)", "s", 6),
    ("✓/✗", "grades", 7),
)
FADING_COLUMNS = (
    ("below in", "when", 9),
    ("R now", "r", 6),
    ("S (d)", "s", 7),
    ("skill", "skill", 7),
    ("reflection", "title", 0),
    ("decision", "decision", 9),
)


Columns = tuple[tuple[str, str, int], ...]


def cluster_columns(with_spikuit: bool) -> Columns:
    """The communities list's columns (Spikuit's community only where present)."""
    return (*CLUSTER_COLUMNS, SPIKUIT_COLUMN) if with_spikuit else CLUSTER_COLUMNS


def fit_widths(columns: Columns, width: int) -> list[int]:
    """Column widths for a table ``width`` cells wide (the flexible column gets the rest)."""
    fixed = sum(w for _l, _k, w in columns)
    # Each column has one cell of padding on both sides; keep room for a scrollbar.
    flexible = max(8, width - fixed - 2 * len(columns) - 2)
    return [w or flexible for _l, _k, w in columns]


def skills_text(skills: dict[str, int]) -> Text:
    """``c8 t2 q3``: members per skill, biggest first."""
    parts = sorted(skills.items(), key=lambda kv: (-kv[1], kv[0]))
    return Text(" ".join(f"{SKILL_SHORT.get(s, one_line(s, 6) or '∅')}{n}" for s, n in parts))


def _r(value: float | None) -> Text:
    return Text("—" if value is None else f"{value:.2f}", justify="right")


def _grades(strong: int, miss: int) -> Text:
    return Text(f"✓{strong} ✗{miss}" if strong or miss else "—")


def cluster_cells(row: CommunityRow, *, with_spikuit: bool = False) -> tuple[Text, ...]:
    """One line of the communities list."""
    number = "·" if row.number < 0 else str(row.number)
    policy = f"◆ {len(row.policies)}" if row.policies else ""
    spikuit = "—" if row.spikuit is None else f"#{row.spikuit[0]} {row.spikuit[1]:.0%}"
    cells = (
        Text(number, justify="right"),
        Text(one_line(row.label, 60) or "—", style="italic" if row.number < 0 else ""),
        Text(f"{row.size:,}", justify="right"),
        skills_text(row.skills),
        _r(row.mean_r),
        Text(f"{row.below}" if row.below else "", justify="right"),
        _grades(row.strong, row.miss),
        Text(policy),
    )
    return (*cells, Text(one_line(spikuit, 8))) if with_spikuit else cells


def title_cell(title: str, state: str) -> Text:
    """A reflection's title, its lifecycle state first when it is not live."""
    cell, mark = Text(), state_mark(state)
    if mark.plain:
        cell.append_text(mark).append(" ")
    return cell.append(one_line(title, 120))


def member_cells(row: MemberRow) -> tuple[Text, ...]:
    """One member of the selected community."""
    return (
        title_cell(row.title, row.state),
        Text(one_line(row.skill, 7)),
        _r(row.r_now),
        Text("—" if row.stability is None else f"{row.stability:.1f}", justify="right"),
        _grades(row.strong, row.miss),
    )


def fading_cells(row: FadingRow) -> tuple[Text, ...]:
    """One reflection of the fading list."""
    return (
        Text(f"{row.crossing_days:.1f} d", justify="right"),
        _r(row.r_now),
        Text(f"{row.stability:.1f}", justify="right"),
        Text(one_line(row.skill, 7)),
        title_cell(row.title, row.state),
        Text(DECISION_MARK.get(row.decision or "", ""), style="bold"),
    )


def clusters_title(data: CommunityData, shown: int, total: int, sort_name: str) -> Text:
    """``first 300 of 1,234 communities of 100,005 reflections · by size · modularity …``."""
    first = f"first {shown} of " if shown < total else ""
    state = "" if data.fresh else " · ⚠ stale: graph changed since"
    return Text(
        f"{first}{total:,} communities of {len(data.ids):,} reflections · by {sort_name} · "
        f"modularity {data.partition.modularity:.2f}{state}"
    )


def members_title(number: int, row: CommunityRow | None, shown: int, total: int) -> Text:
    """Which community, its label, how many members (and which are shown), its policies."""
    name = "isolated reflections" if number < 0 else f"#{number}"
    label = f" · {one_line(row.label, 40)}" if row and number >= 0 else ""
    more = f" (weakest {shown})" if shown < total else ""
    policy = ""
    if row and row.policies:
        policy = " · policy " + ", ".join(one_line(p, 24) for p in row.policies)
    return Text(f"{name}{label} · {total:,} members{more}{policy}")


def fading_title(f: FadingList) -> Text:
    """How many fade within the horizon, how many are already below, and the keys."""
    more = f" (first {len(f.rows)})" if len(f.rows) < f.total else ""
    return Text(
        f"{f.total:,} reflection(s) fall below R {f.threshold:.2f} within {f.days} d{more} · "
        f"{f.below_now:,} already below · K rescue · L let go · enter open"
    )
