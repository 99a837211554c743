"""One line of the queue, as cells: the mark and flag, the summary (titles, not ids),
the age and how many lessons the curator consulted."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from brainview.core.safe_text import first_line
from brainview.core.timestamps import parse_ts
from brainview.core.vocabulary import GLYPH

if TYPE_CHECKING:
    from brainview.services.review.queue import QueueRow

FIXED = {"mark": 2, "age": 3, "consulted": 2}
"""Column widths; the summary (which starts with the verb: link, merge, retire…) takes
the rest."""


def _flag(row: QueueRow) -> Text:
    """⚑ leaning on a non-live lesson or blast-flagged, ↻ stale, ☣ other suspicion."""
    if not row.suspicion:
        return Text(GLYPH["flagged"] if row.leans else GLYPH["stale"] if row.stale else " ")
    from brainview.tui.widgets.suspicion import queue_flag

    return queue_flag(bool(row.stale), row.suspicion, row.leans)


def mark_cell(row: QueueRow, marked: bool) -> Text:
    """``▸`` when marked, then the flag: two characters in one column."""
    return Text.assemble(GLYPH["marked"] if marked else " ", _flag(row))


def age_label(created_at: str, now_ts: float) -> str:
    """``12m``, ``5h``, ``9d``."""
    age_s = max(0.0, now_ts - parse_ts(created_at).timestamp())
    if age_s < 3600:
        return f"{int(age_s // 60)}m"
    if age_s < 86400:
        return f"{int(age_s // 3600)}h"
    return f"{int(age_s // 86400)}d"


PRESENCE_MARK = GLYPH["viewing"]
"""Before the summary of a proposal someone else is looking at (signed-in consoles)."""


def summary_cell(row: QueueRow, holder: str | None = None) -> Text:
    """The summary (titles, not ids), after ``◉ bob`` when ``holder`` looks at it and
    ``½ ada`` when ada's vote waits for a second person."""
    text = Text(first_line(row.title_summary or row.summary, 80))
    if row.approval is not None:
        from brainview.tui.triage.approvals_view import approval_mark

        text = Text.assemble(approval_mark(row.approval), text)
    if holder:  # a checked name (core.identity): letters, digits, . _ -
        return Text.assemble((f"{PRESENCE_MARK} {holder} ", "bold magenta"), text)
    return text


def queue_cells(
    row: QueueRow, marked: bool, now_ts: float, holder: str | None = None
) -> list[Text]:
    """One queue line: mark and flag, summary (titles, not ids; who else is looking at
    it), age, consulted."""
    return [
        mark_cell(row, marked),
        summary_cell(row, holder),
        Text(age_label(row.created_at, now_ts), justify="right"),
        Text(str(row.n_consulted), justify="right"),
    ]
