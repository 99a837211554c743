"""Triage's export of the queue view (``e``): the loaded rows, as filtered and sorted,
with titles as on screen, to a CSV or JSON file through the session."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from brainview.core.safe_text import one_line
from brainview.tui.access import session_of
from brainview.tui.widgets.reason_prompt import ReasonPrompt
from brainview.tui.workers import run_service

if TYPE_CHECKING:
    from brainview.services.session import Session
    from brainview.tui.triage.screen import TriageScreen

T = TypeVar("T")


def export(s: TriageScreen) -> None:
    """Ask for a path, then write the loaded rows (as filtered and sorted).  In a
    console ``brainview serve`` runs for a signed-in person, only a file name: it
    is written in the project's ``exports/`` (:mod:`brainview.services.team.exports`)."""
    served = session_of(s).signed_in

    def done(path: str | None) -> None:
        if path and served:
            _export_served(s, path)
        elif path:
            _export(s, Path(path).expanduser().resolve())

    hint = "file name ending .csv or .json (saved in exports/)" if served else None
    prompt = ReasonPrompt(
        "Export the queue view",
        required=True,
        placeholder=hint or "path ending .csv or .json",
    )
    s.app.push_screen(prompt, done)


def _export_served(s: TriageScreen, name: str) -> None:
    rows = rows_of(s)
    _run(s, lambda session: session.export_served(rows, name), lambda shown: (len(rows), shown))


def rows_of(s: TriageScreen) -> list[dict[str, object]]:
    """The queue view's rows as exported (summaries with titles, as on screen)."""
    return [
        {
            "id": r.id,
            "kind": r.kind,
            "skill": r.skill,
            "summary": r.title_summary or r.summary,  # titles, as on screen
            "created_at": r.created_at,
            "consulted": r.n_consulted,
            "stale": r.stale or "",
        }
        for r in s.rows
    ]


def _export(s: TriageScreen, path: Path) -> None:
    rows = rows_of(s)
    _run(s, lambda session: session.export_rows(rows, path), lambda n: (n, str(path)))


def _run(
    s: TriageScreen, job: Callable[[Session], T], said: Callable[[T], tuple[int, str]]
) -> None:
    """Run the export ``job``; say how many rows went where (``said`` of its result)."""

    def done(result: T) -> None:
        n, where = said(result)
        s.notify(f"exported {n} row(s) to {one_line(where, 400)}", markup=False)

    run_service(s, job, group="export", done=done)
