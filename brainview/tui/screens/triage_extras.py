"""Triage extras: copy the id or JSON of the highlighted proposal (OSC 52), export the
queue view as CSV or JSON, recall for the proposal's draft.  A mixin of
:class:`~brainview.tui.screens.triage.TriageScreen`.
"""

from __future__ import annotations

import json
from typing import Any

from textual import work

from brainview.core.safe_text import one_line
from brainview.tui.screens.triage_messages import ActionFailed
from brainview.tui.widgets.reason_prompt import ReasonPrompt


class TriageExtras:
    """Copy, export and recall."""

    app: Any
    rows: list[Any]
    detail: Any

    def action_copy_id(self) -> None:
        """Copy the highlighted proposal's id (OSC 52; tmux needs ``set-clipboard on``)."""
        pid = self.current_id
        if pid:
            self.app.copy_to_clipboard(pid)
            self.notify(f"copied {one_line(pid, 40)}", timeout=2, markup=False)

    def action_copy_json(self) -> None:
        """Copy the highlighted proposal as JSON (control characters stay escaped)."""
        d = self.detail
        if d is None or d.id != self.current_id:
            return
        payload = {
            "id": d.id,
            "skill": d.skill,
            "kind": d.kind,
            "params": d.params,
            "rationale": d.rationale,
            "created_at": d.created_at,
            "status": d.status,
            "consulted": [{"reflection": v.id, "stance": v.stance} for v in d.consulted],
            "retrieved": [v.id for v in d.retrieved],
        }
        self.app.copy_to_clipboard(json.dumps(payload, ensure_ascii=True, sort_keys=True))
        self.notify("copied proposal JSON", timeout=2)

    def action_recall(self) -> None:
        """Open the recall box prefilled with the highlighted proposal's draft (kind,
        params, rationale): the lessons a curator would be shown for it."""
        d = self.detail
        if d is not None and d.id == self.current_id:
            self.app.open_recall(d)

    def action_export(self) -> None:
        """Export the loaded queue rows (as filtered and sorted) to CSV or JSON."""

        def done(path: str | None) -> None:
            if path:
                self.export_view(path)

        self.app.push_screen(
            ReasonPrompt(
                "Export the queue view", required=True, placeholder="path ending .csv or .json"
            ),
            done,
        )

    @work(thread=True, exclusive=True, group="triage-export")
    def export_view(self, path: str) -> None:
        """Write the rows off the UI thread."""
        from pathlib import Path

        from brainview.services.readout.view_export import export_rows

        rows = [
            {
                "id": r.id,
                "kind": r.kind,
                "skill": r.skill,
                "summary": r.summary,
                "created_at": r.created_at,
                "consulted": r.n_consulted,
                "stale": r.stale or "",
            }
            for r in self.rows
        ]
        target = Path(path).expanduser().absolute()  # the toast says where, in full
        try:
            n = export_rows(rows, target)
        except Exception as err:  # noqa: BLE001 - shown to the user
            self.post_message(ActionFailed(one_line(str(err), 200)))
            return
        self.app.call_from_thread(
            self.notify, f"exported {n} row(s) to {one_line(str(target), 200)}", markup=False
        )
