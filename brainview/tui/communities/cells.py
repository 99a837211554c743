"""Table cells and titles for the communities screen (clusters, members, fading list).

Every string from the brain goes through :mod:`brainview.core.safe_text` into ``Text``
objects (``DataTable`` parses plain strings as markup). Meaning never by colour alone:
█ strong / ▁ miss, ⛨ kept / ↓ let go, ▽ below threshold; a reflection that is not live
has its state before its title (⚠ challenged, ⊖ invalidated, ⊘ retired); glyphs from
:mod:`brainview.core.vocabulary`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from brainview.core.community_label import SINGLETONS, shown_number
from brainview.core.safe_text import one_line
from brainview.core.vocabulary import GLYPH, mark
from brainview.tui.widgets.suspicion import state_mark

if TYPE_CHECKING:
    from brainview.services.communities import CommunityData, CommunityRow, MemberRow
    from brainview.services.communities.curves import FadingList, FadingRow

ABOUT = "A community is a family of similar lessons that fire together."
"""The one line that says what a community is."""
DECISION_MARK = {"rescue": mark("kept"), "let_go": mark("let go")}
CLUSTER_COLUMNS = (
    ("#", "number", 3),
    ("typical lesson", "label", 0),
    ("size", "size", 5),
    ("skills", "skills", -1),
    ("R̄ now", "r", 5),
    ("low", "below", 3),
    ("█/▁", "grades", 7),
    ("policy", "policy", 6),
)
"""(label, key, width; 0 = takes what is left, −1 = a third of it, 17 to 30)."""
SPIKUIT_COLUMN = ("spkt", "spikuit", 8)
"""Spikuit's own community, only where the brain has one."""
MEMBER_COLUMNS = (
    ("reflection", "title", 0),
    ("skill", "skill", 7),
    ("R now", "r", 5),
    ("S (d)", "s", 6),
    ("█/▁", "grades", 7),
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


LABEL_FLOOR = 20
"""Cells the flexible column (a community's label, a lesson's title) keeps before the
shared one (skills) takes more than :data:`SHARED_FLOOR`: at 80 columns a label read
16 cells ("Suggested ⟦…⟧ re")."""
SHARED_FLOOR = 13


def fit_widths(columns: Columns, width: int) -> list[int]:
    """Column widths for a table ``width`` cells wide (the flexible column gets the rest;
    a shared one, ``−1``, a third of it, less on a narrow table so the flexible one keeps
    :data:`LABEL_FLOOR` cells)."""
    fixed = sum(w for _l, _k, w in columns if w > 0)
    # Each column has one cell of padding on both sides; keep room for a scrollbar.
    rest = max(8, width - fixed - 2 * len(columns) - 2)
    shared = min(30, max(17, rest // 3)) if any(w < 0 for _l, _k, w in columns) else 0
    if shared and rest - shared < LABEL_FLOOR:  # narrow: the label keeps its words
        shared = max(SHARED_FLOOR, rest - LABEL_FLOOR)
    flexible = max(8, rest - shared)
    return [flexible if w == 0 else shared if w < 0 else w for _l, _k, w in columns]


def skills_text(skills: dict[str, int], width: int = 30) -> Text:
    """``curator 8, qabot 3, tutor 2``: members per skill, biggest first, as many as
    fit in ``width`` cells, then ``+N more`` (skills)."""
    parts = [
        f"{one_line(s, 12) or '∅'} {n}"
        for s, n in sorted(skills.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    for shown in range(len(parts), 0, -1):
        more = f" +{len(parts) - shown} more" if shown < len(parts) else ""
        line = ", ".join(parts[:shown]) + more
        if len(line) <= width:
            return Text(line)
    if not parts:
        return Text("—")
    extra = f" +{len(parts) - 1}" if len(parts) > 1 else ""
    top = parts[0].rsplit(" ", 1)[0]  # the biggest skill's name, without its count
    for line in (parts[0] + extra, top + extra):
        if len(line) <= width:
            return Text(line)
    return Text(one_line(top + extra, width))


def _r(value: float | None) -> Text:
    return Text("—" if value is None else f"{value:.2f}", justify="right")


def _grades(strong: int, miss: int) -> Text:
    return Text(f"{GLYPH['strong']}{strong} {GLYPH['miss']}{miss}" if strong or miss else "—")


def shown(number: int) -> str:
    """The community number a person sees (``·`` for the isolated reflections)."""
    n = shown_number(number)
    return "·" if n is None else str(n)


def cluster_cells(
    row: CommunityRow, *, with_spikuit: bool = False, skills_width: int = 30
) -> tuple[Text, ...]:
    """One line of the communities list."""
    number = shown(row.number)
    policy = f"{GLYPH['policy']} {len(row.policies)}" if row.policies else ""
    spikuit = "—" if row.spikuit is None else f"#{row.spikuit[0]} {row.spikuit[1]:.0%}"
    cells = (
        Text(number, justify="right"),
        Text(one_line(row.label, 60) or "—", style="italic" if row.number < 0 else ""),
        Text(f"{row.size:,}", justify="right"),
        skills_text(row.skills, skills_width),
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


def clusters_title(
    data: CommunityData, rows: list[CommunityRow], total: int, sort_name: str
) -> Text:
    """``12 communities (+5 unclustered) of 155 reflections · by size · modularity …``: the
    count is of numbered communities, so the last number shown is the count."""
    isolated = next((r.size for r in rows if r.number == SINGLETONS), 0)
    groups = total - (1 if isolated else 0)
    first = f"first {len(rows)} of " if len(rows) < total else ""
    alone = f" (+{isolated:,} unclustered)" if isolated else ""
    state = "" if data.fresh else f" · {mark('stale')}: graph changed since"
    return Text(
        f"{first}{groups:,} communities{alone} of {len(data.ids):,} reflections · "
        f"by {sort_name} · modularity {data.partition.modularity:.2f}{state}"
    )


def members_title(number: int, row: CommunityRow | None, count: int, total: int) -> Text:
    """Which community, its label, how many members (and which are shown), its policies."""
    name = "unclustered reflections" if number < 0 else f"#{shown(number)}"
    label = f" · {one_line(row.label, 40)}" if row and number >= 0 else ""
    more = f" (weakest {count})" if count < total else ""
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
