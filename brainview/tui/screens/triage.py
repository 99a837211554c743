"""Triage: the queue | the proposal and its preview | user neurons | consulted reflections.

Decisions run in a thread worker against the services layer; the screen only
moves the cursor and redraws what changed when the result message arrives.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Static

from brainview.core.safe_text import one_line
from brainview.tui.screens.triage_messages import (
    ActionFailed,
    DecisionPersisted,
    DetailLoaded,
    QueueExtended,
    QueueLoaded,
    UndoPersisted,
)
from brainview.tui.widgets.proposal_view import (
    queue_cells,
    render_agent_side,
    render_header,
    render_user_side,
)
from brainview.tui.widgets.reason_prompt import ReasonPrompt

if TYPE_CHECKING:
    from brainview.services.detail import ProposalDetail
    from brainview.services.queue import QueueRow

SORTS = ("age", "newest", "kind", "consulted")
PAGE = 200


class TriageScreen(Screen[None]):
    """Work through pending proposals; each decision grades the consulted reflections.

    | Key | Action |
    |-----|--------|
    | `a` | Accept (all marked, if any) |
    | `E` | Edit a policy proposal's text, then accept it |
    | `r` | Reject with an optional reason |
    | `s` | Skip to the next proposal |
    | `u`, `ctrl+z` | Undo the last decision of this session |
    | `space` / `v` | Mark / range-mark |
    | `/` | Filter |
    | `o` | Cycle sort order |
    """

    BINDINGS = [
        Binding("a", "accept", "Accept", id="triage.accept", tooltip="Accept; grades strong"),
        Binding("r", "reject", "Reject", id="triage.reject", tooltip="Reject with a reason"),
        Binding(
            "d",
            "dismiss",
            "Dismiss",
            id="triage.dismiss",
            tooltip="Set a stale proposal aside: no verdict, no grades",
        ),
        Binding(
            "E",
            "edit_policy",
            "Edit policy",
            id="triage.edit_policy",
            tooltip="Edit a policy proposal's text, then accept it",
        ),
        Binding("s", "skip", "Skip", id="triage.skip", tooltip="Next proposal, no decision"),
        Binding("u,ctrl+z", "undo", "Undo", id="triage.undo", tooltip="Undo last decision"),
        Binding("space", "mark", "Mark", id="triage.mark", tooltip="Mark for a bulk decision"),
        Binding("v", "range_mark", "Range", id="triage.range", tooltip="Mark up to here"),
        Binding("slash", "filter", "Filter", id="triage.filter", tooltip="Filter the queue"),
        Binding("o", "sort", "Sort", id="triage.sort", tooltip="Cycle the sort order"),
        Binding("j", "cursor(1)", "Down", id="triage.down", show=False),
        Binding("k", "cursor(-1)", "Up", id="triage.up", show=False),
        Binding(
            "c",
            "copy_id",
            "Copy id",
            id="triage.copy_id",
            tooltip="Copy the proposal id",
            show=False,
        ),
        Binding(
            "C",
            "copy_json",
            "Copy JSON",
            id="triage.copy_json",
            tooltip="Copy the proposal as JSON",
            show=False,
        ),
        Binding(
            "e", "export", "Export", id="triage.export", tooltip="Export the queue view", show=False
        ),
        Binding("G", "cursor_last", "Last", id="triage.last", show=False),
        Binding("g", "cursor_first", "First", id="triage.first", show=False),
        Binding("escape", "clear", "Clear", id="triage.clear", show=False),
    ]

    POLL_SECONDS = 1.0

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[QueueRow] = []
        self.total = 0
        self.marked: set[str] = set()
        self.anchor: str | None = None
        self.sort = "age"
        self.needle = ""
        self.detail: ProposalDetail | None = None
        self.shown_at = time.monotonic()
        self.session_decisions: list[str] = []
        self.signature: tuple[int, int, int] | None = None
        """Queue fingerprint as of the last load (``None`` until the first load)."""
        self.busy = False
        self.mode = ""
        """Apply mode shown in the title: ``apply`` or ``record-only``."""
        self.writing_paused = False
        """The project paused reflection writing (shown in the title)."""
        self._keep: str | None = None
        self._details: dict[str, ProposalDetail] = {}
        """Loaded proposal contexts by id (shown at once, refreshed in the background)."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="triage-body"):
            with Vertical(id="queue-pane"):
                yield Static("", id="queue-title")
                yield Input(placeholder="filter: kind, id, words…", id="filter")
                yield DataTable(id="queue", cursor_type="row", zebra_stripes=True)
            with Vertical(id="detail-pane"):
                with VerticalScroll(id="proposal-scroll"):
                    yield Static("", id="proposal")
                with Horizontal(id="sides"):
                    with VerticalScroll(id="user-side", classes="side"):
                        yield Static("", id="user-neurons")
                    with VerticalScroll(id="agent-side", classes="side"):
                        yield Static("", id="reflections")
        yield Footer()

    def on_mount(self) -> None:
        self._columns_for(self.query_one("#queue-pane").size.width or 50)
        self.query_one("#filter", Input).display = False
        self.query_one("#queue", DataTable).focus()
        self.query_one("#user-side").border_title = "user brain"
        self.query_one("#agent-side").border_title = "agent brain"
        self.reload()
        self.set_interval(self.POLL_SECONDS, self.poll)
        self.recover_intents()

    @work(thread=True, exclusive=True, group="triage-recover")
    def recover_intents(self) -> None:
        """Finish (or roll back) user-brain changes a crash left half-done, and read the
        apply mode (apply / record-only) for the title."""
        from brainview.services import apply, reflection_writing

        try:
            mode = apply.apply_mode(self.app.paths)  # type: ignore[attr-defined]
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                waiting = apply.open_intents(project)
                paused = reflection_writing.state(project).paused
            self.app.call_from_thread(self.set_writing, paused)
            outcomes = []
            if waiting:
                with self.app.open_project(  # type: ignore[attr-defined]
                    write_agent=True, write_user=True
                ) as project:
                    outcomes = apply.recover(project, now=self.app.now())  # type: ignore[attr-defined]
        except Exception as err:  # noqa: BLE001 - shown, never fatal
            self.post_message(ActionFailed(one_line(str(err), 200)))
            return
        self.app.call_from_thread(self._set_mode, mode, len(outcomes))

    def set_writing(self, paused: bool) -> None:
        """Show (or clear) "reflections paused" in the title."""
        self.writing_paused = paused
        self.app.writing_paused = paused  # type: ignore[attr-defined]
        self._update_title()

    def _set_mode(self, mode: str, recovered: int) -> None:
        self.mode = mode
        self._update_title()
        if recovered:
            self.notify(f"finished {recovered} interrupted change(s) from the last session")

    def _columns_for(self, pane_width: int) -> None:
        """Fixed column widths (deterministic layout); summary takes what is left."""
        table = self.query_one("#queue", DataTable)
        fixed = {"mark": 1, "flag": 1, "kind": 8, "age": 3, "consulted": 2}
        summary = max(12, pane_width - sum(fixed.values()) - 2 * 6 - 3)
        if getattr(self, "_summary_width", None) == summary:
            return
        self._summary_width = summary
        table.clear(columns=True)
        for label, key in (
            ("", "mark"),
            ("", "flag"),
            ("kind", "kind"),
            ("summary", "summary"),
            ("age", "age"),
            ("c", "consulted"),
        ):
            table.add_column(label, key=key, width=summary if key == "summary" else fixed[key])
        if self.rows:
            self._fill_table(self.rows)

    def on_resize(self) -> None:
        # Panes get their new size after this event; measure once they have.
        self.call_after_refresh(self._fit_columns)

    def _fit_columns(self) -> None:
        width = self.query_one("#queue-pane").size.width
        if width:
            self._columns_for(width)

    def _fill_table(self, rows: list[QueueRow]) -> None:
        table = self.query_one("#queue", DataTable)
        now_ts = self.app.now().timestamp()  # type: ignore[attr-defined]
        cursor = table.cursor_row
        table.clear()
        for row in rows:
            table.add_row(*queue_cells(row, row.id in self.marked, now_ts), key=row.id)
        if rows:
            table.move_cursor(row=max(0, min(cursor, len(rows) - 1)), animate=False)

    # -- loading ---------------------------------------------------------------

    def reload(self, keep: str | None = None) -> None:
        """Reload the queue page (keeping the cursor on ``keep`` if still there).

        A later reload (e.g. from polling) must not lose an earlier one's target,
        so the wanted proposal is remembered until a page arrives.
        """
        if keep is not None:
            self._keep = keep
        elif self._keep is None:
            self._keep = self.current_id
        self.load_queue(self.sort, self.needle, self._keep, max(PAGE, len(self.rows)))

    @work(thread=True, exclusive=True, group="triage-queue")
    def load_queue(self, sort: str, needle: str, keep: str | None, limit: int = PAGE) -> None:
        """Read the first ``limit`` rows of the queue (thread)."""
        from brainview.services.queue import page, signature

        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                rows, total = page(project, sort=sort, needle=needle, limit=limit)
                sig = signature(project)
        except Exception as err:  # noqa: BLE001
            self.post_message(ActionFailed(one_line(str(err), 200)))
            return
        self.post_message(QueueLoaded(rows, total, sig, keep))

    @work(thread=True, exclusive=True, group="triage-more")
    def load_more(self, sort: str, needle: str, offset: int) -> None:
        """Read the next page when the cursor nears the end of what is loaded (thread)."""
        from brainview.services.queue import page

        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                rows, total = page(project, sort=sort, needle=needle, offset=offset)
        except Exception:  # noqa: BLE001 - the next reload shows the error
            return
        self.post_message(QueueExtended(rows, total, offset))

    @work(thread=True, exclusive=True, group="triage-detail")
    def load_detail(self, proposal_id: str) -> None:
        """Read both brains' context for one proposal (thread)."""
        from brainview.services.detail import load

        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                detail = load(project, proposal_id, self.app.now())  # type: ignore[attr-defined]
        except Exception as err:  # noqa: BLE001
            self.post_message(ActionFailed(one_line(str(err), 200)))
            return
        self.post_message(DetailLoaded(detail))

    @work(thread=True, exclusive=True, group="triage-poll")
    def poll(self) -> None:
        """Notice proposals added or decided by another process (cheap fingerprint)."""
        from brainview.services.queue import signature

        if self.busy or self.signature is None:
            return
        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                sig = signature(project)
        except Exception:  # noqa: BLE001 - transient (locked); try next tick
            return
        if sig != self.signature:
            self.app.call_from_thread(self._external_change, sig)

    def _external_change(self, sig: tuple[int, int, int]) -> None:
        if self.signature is None or sig == self.signature:
            return
        if sig[0] > self.signature[0]:
            added = sig[0] - self.signature[0]
            self.notify(f"{added} new proposal(s) arrived", title="Queue")
        self.reload()

    @on(QueueLoaded)
    def show_queue(self, message: QueueLoaded) -> None:
        self.rows, self.total, self.signature = message.rows, message.total, message.signature
        table = self.query_one("#queue", DataTable)
        self._fill_table(self.rows)
        self._update_title()
        ids = [r.id for r in self.rows]
        self._keep = None
        if message.keep in ids:
            table.move_cursor(row=ids.index(message.keep))
        self._after_cursor()
        self.refresh_bindings()

    def _update_title(self) -> None:
        shown = len(self.rows)
        more = f" ({shown} loaded)" if shown < self.total else ""
        marked = f" · {len(self.marked)} marked" if self.marked else ""
        label = {"apply": "accept applies", "record-only": "record-only"}.get(self.mode, self.mode)
        mode = f" · {label}" if label else ""
        if self.writing_paused:
            mode += " · reflections paused"
        needle = f" · filter “{one_line(self.needle, 30)}”" if self.needle else ""
        self.query_one("#queue-title", Static).update(
            Text(f"{self.total} pending{more} · sort {self.sort}{mode}{needle}{marked}")
        )

    @property
    def current_id(self) -> str | None:
        """The highlighted proposal's id."""
        table = self.query_one("#queue", DataTable)
        if not self.rows or table.cursor_row < 0 or table.cursor_row >= len(self.rows):
            return None
        return self.rows[table.cursor_row].id

    @on(DataTable.RowHighlighted, "#queue")
    def _highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._after_cursor()
        table = self.query_one("#queue", DataTable)
        if len(self.rows) < self.total and table.cursor_row >= len(self.rows) - 10:
            self.load_more(self.sort, self.needle, len(self.rows))

    @on(QueueExtended)
    def _extend(self, message: QueueExtended) -> None:
        if message.offset != len(self.rows):
            return  # the queue was reloaded meanwhile
        table = self.query_one("#queue", DataTable)
        now_ts = self.app.now().timestamp()  # type: ignore[attr-defined]
        known = {r.id for r in self.rows}
        fresh = [r for r in message.rows if r.id not in known]
        for row in fresh:
            table.add_row(*queue_cells(row, row.id in self.marked, now_ts), key=row.id)
        self.rows = self.rows + fresh
        self.total = message.total
        self._update_title()

    def _after_cursor(self) -> None:
        pid = self.current_id
        self.shown_at = time.monotonic()
        if pid is None:
            self.detail = None
            self.query_one("#proposal", Static).update(
                Text(
                    "Nothing pending. New proposals appear here as the curator sends them.",
                    style="italic",
                )
            )
            self.query_one("#user-neurons", Static).update("")
            self.query_one("#reflections", Static).update("")
            return
        cached = self._details.get(pid)
        if cached is not None:
            self._render_detail(cached)  # instant; refreshed below (grades may have moved)
        elif self.detail is None or self.detail.id != pid:
            self.query_one("#proposal", Static).update(Text("loading…", style="dim italic"))
        self.load_detail(pid)

    @on(DetailLoaded)
    def show_detail(self, message: DetailLoaded) -> None:
        self._details[message.detail.id] = message.detail
        if message.detail.id != self.current_id:
            return
        self._render_detail(message.detail)
        nxt = self._neighbour_id(1)
        if nxt is not None and nxt not in self._details:
            self.prefetch(nxt)

    def _render_detail(self, detail: ProposalDetail) -> None:
        self.detail = detail
        self.query_one("#proposal", Static).update(render_header(detail))
        self.query_one("#user-neurons", Static).update(render_user_side(detail))
        review = detail.agent_item is not None
        self.query_one("#user-side").border_title = "review" if review else "user brain"
        self.query_one("#reflections", Static).update(render_agent_side(detail))
        self.refresh_bindings()

    def _neighbour_id(self, step: int) -> str | None:
        row = self.query_one("#queue", DataTable).cursor_row + step
        return self.rows[row].id if 0 <= row < len(self.rows) else None

    @work(thread=True, exclusive=True, group="triage-prefetch")
    def prefetch(self, proposal_id: str) -> None:
        """Load the next proposal's context ahead of time, so deciding feels instant."""
        from brainview.services.detail import load

        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                detail = load(project, proposal_id, self.app.now())  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - a prefetch may fail quietly; the real load reports
            return
        self.post_message(DetailLoaded(detail))

    # -- decisions -------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("accept", "reject", "dismiss", "skip", "mark", "range_mark"):
            if not self.rows:
                return None
            if action == "accept" and not self.marked and self.detail and self.detail.stale:
                return None
        if action == "undo" and not self.session_decisions:
            return None
        if action == "edit_policy":
            d = self.detail
            editable = (
                d is not None
                and d.id == self.current_id
                and d.kind == "summarize_community"
                and d.status == "pending"
                and not d.stale
                and not self.marked
            )
            return True if editable else None
        return True

    def action_edit_policy(self) -> None:
        """Edit the highlighted policy proposal's text; saving accepts it with that text."""
        from brainview.tui.widgets.policy_editor import PolicyEditor

        d = self.detail
        if d is None or d.kind != "summarize_community" or d.id != self.current_id:
            return
        pid, seconds = d.id, time.monotonic() - self.shown_at
        policy = str(d.params.get("policy", ""))

        def done(text: str | None) -> None:
            if text is not None:
                self._optimistic_remove([pid])
                self.decide([pid], "accept", None, seconds, text)

        self.app.push_screen(PolicyEditor(policy, str(d.params.get("text", ""))), done)

    def _targets(self) -> list[str]:
        if self.marked:
            return [r.id for r in self.rows if r.id in self.marked]
        pid = self.current_id
        return [pid] if pid else []

    def action_accept(self) -> None:
        """Accept the highlighted (or marked) proposals."""
        targets = self._targets()
        stale = [r.id for r in self.rows if r.id in targets and r.stale]
        if stale:
            self.notify(
                f"{len(stale)} stale proposal(s) cannot be accepted; reject them.",
                severity="warning",
            )
            return
        if targets:
            seconds = time.monotonic() - self.shown_at
            self._optimistic_remove(targets)
            self.decide(targets, "accept", None, seconds)

    def action_reject(self) -> None:
        """Ask for a reason, then reject the highlighted (or marked) proposals."""
        targets = self._targets()
        if not targets:
            return
        seconds = time.monotonic() - self.shown_at
        title = f"Reject {len(targets)} proposal(s)" if len(targets) > 1 else "Reject proposal"

        def done(reason: str | None) -> None:
            if reason is not None:
                self._optimistic_remove(targets)
                self.decide(targets, "reject", reason or None, seconds)

        self.app.push_screen(ReasonPrompt(title), done)

    def _optimistic_remove(self, ids: list[str]) -> None:
        """Take decided rows off the queue at once; the next proposal slides under the
        cursor while the decision commits.  A refusal reloads the queue (rows return)."""
        gone = set(ids)
        table = self.query_one("#queue", DataTable)
        old = [r.id for r in self.rows]
        cursor = max(0, table.cursor_row)
        after = [pid for pid in old[cursor:] if pid not in gone]
        before = [pid for pid in old[:cursor] if pid not in gone]
        target = after[0] if after else (before[-1] if before else None)
        for pid in ids:
            if pid in old:
                table.remove_row(pid)
            self._details.pop(pid, None)
        self.rows = [r for r in self.rows if r.id not in gone]
        self.total = max(0, self.total - len(gone & set(old)))
        self.marked -= gone
        self._update_title()
        if target is not None:
            table.move_cursor(row=[r.id for r in self.rows].index(target), animate=False)
        self._after_cursor()

    def action_dismiss(self) -> None:
        """Set the highlighted (or marked) proposals aside without a verdict."""
        targets = self._targets()
        if not targets:
            return
        seconds = time.monotonic() - self.shown_at

        def done(reason: str | None) -> None:
            if reason is not None:
                self._optimistic_remove(targets)
                self.decide(targets, "dismiss", reason or None, seconds)

        self.app.push_screen(ReasonPrompt(f"Dismiss {len(targets)} proposal(s)"), done)

    def action_skip(self) -> None:
        """Move on without deciding."""
        self.action_cursor(1)

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

        from brainview.services.view_export import export_rows

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
        try:
            n = export_rows(rows, Path(path).expanduser())
        except Exception as err:  # noqa: BLE001 - shown to the user
            self.post_message(ActionFailed(one_line(str(err), 200)))
            return
        self.app.call_from_thread(
            self.notify, f"exported {n} row(s) to {one_line(path, 60)}", markup=False
        )

    def action_cursor_last(self) -> None:
        """Jump to the last loaded proposal (loads the next page if there is one)."""
        if self.rows:
            self.query_one("#queue", DataTable).move_cursor(row=len(self.rows) - 1)

    def action_cursor_first(self) -> None:
        """Jump to the first proposal."""
        if self.rows:
            self.query_one("#queue", DataTable).move_cursor(row=0)

    def action_cursor(self, step: int) -> None:
        """Move the queue cursor."""
        table = self.query_one("#queue", DataTable)
        if self.rows:
            table.move_cursor(row=max(0, min(len(self.rows) - 1, table.cursor_row + step)))

    @work(thread=True, exclusive=True, group="triage-decide")
    def decide(
        self,
        ids: list[str],
        verdict: str,
        reason: str | None,
        seconds: float,
        policy_text: str | None = None,
    ) -> None:
        """Persist decisions (thread); posts DecisionPersisted or ActionFailed."""
        from brainview.services import apply, review

        review_cfg = self.app.config.review  # type: ignore[attr-defined]
        self.busy = True
        results = []
        try:
            applier = apply.applier_for(self.app.paths) if verdict == "accept" else None  # type: ignore[attr-defined]
            with self.app.open_project(  # type: ignore[attr-defined]
                write_agent=True, write_user=applier is not None
            ) as project:
                # All marked proposals in one transaction: all decided, or none.
                results = review.decide_many(
                    project,
                    ids,
                    verdict,  # type: ignore[arg-type]
                    reason=reason,
                    decider=self.app.decider,  # type: ignore[attr-defined]
                    seconds_on_screen=seconds / max(1, len(ids)),
                    now=self.app.now(),  # type: ignore[attr-defined]
                    applier=applier,
                    write_reflections=review_cfg.write_reflections,
                    annotate_grade=review_cfg.annotate_grade,
                    policy_text=policy_text,
                )
        except Exception as err:  # noqa: BLE001 - shown to the user
            self.post_message(ActionFailed(one_line(str(err), 200)))
        finally:
            self.busy = False
        if results:
            self.post_message(DecisionPersisted(results, verdict))

    @on(DecisionPersisted)
    def decided(self, message: DecisionPersisted) -> None:
        ids = {r.proposal_id for r in message.results}
        self.session_decisions += [r.decision_id for r in message.results]
        self.marked -= ids
        self.anchor = None
        grades = sum(len(r.grades) for r in message.results)
        mark = {"accept": "✓ accepted", "reject": "✗ rejected"}.get(message.verdict, "⊘ dismissed")
        self.notify(f"{mark} {len(ids)} · {grades} grade(s) fired", timeout=2)
        # The rows already left the queue (optimistically); re-read to stay exact.
        self.reload(self.current_id)

    def action_undo(self) -> None:
        """Undo this session's most recent decision."""
        if self.session_decisions:
            self.undo(self.session_decisions[-1])

    @work(thread=True, exclusive=True, group="triage-decide")
    def undo(self, decision_id: str) -> None:
        """Revert one decision exactly (thread)."""
        from brainview.errors import ReadOnlyError
        from brainview.services import review

        try:
            try:  # an applied decision reverts the user brain too
                opened = self.app.open_project(write_agent=True, write_user=True)  # type: ignore[attr-defined]
            except ReadOnlyError:
                opened = self.app.open_project(write_agent=True)  # type: ignore[attr-defined]
            with opened as project:
                result = review.undo(
                    project,
                    decision_id,
                    now=self.app.now(),  # type: ignore[attr-defined]
                    actor=self.app.decider,  # type: ignore[attr-defined]
                )
        except Exception as err:  # noqa: BLE001
            self.post_message(ActionFailed(one_line(str(err), 200)))
            return
        pid = getattr(result, "proposal_id", None) or str(result)
        self.post_message(UndoPersisted(pid))

    @on(UndoPersisted)
    def undone(self, message: UndoPersisted) -> None:
        if self.session_decisions:
            self.session_decisions.pop()
        self.notify("↶ decision undone", timeout=2)
        self.reload(message.proposal_id)

    @on(ActionFailed)
    def failed(self, message: ActionFailed) -> None:
        self.notify(message.text, title="Refused", severity="error", markup=False)
        self.reload(self.current_id)

    # -- marking, filtering, sorting ----------------------------------------------

    def action_mark(self) -> None:
        """Toggle the mark on the highlighted proposal."""
        pid = self.current_id
        if pid is None:
            return
        self.marked ^= {pid}
        self.anchor = pid if pid in self.marked else self.anchor
        self._redraw_marks()
        self.action_cursor(1)

    def action_range_mark(self) -> None:
        """Mark everything between the last mark and the cursor."""
        pid = self.current_id
        if pid is None:
            return
        ids = [r.id for r in self.rows]
        a = ids.index(self.anchor) if self.anchor in ids else ids.index(pid)
        b = ids.index(pid)
        self.marked |= set(ids[min(a, b) : max(a, b) + 1])
        self.anchor = pid
        self._redraw_marks()

    def _redraw_marks(self) -> None:
        table = self.query_one("#queue", DataTable)
        for row in self.rows:
            table.update_cell(row.id, "mark", Text("●" if row.id in self.marked else " "))
        self._update_title()

    def action_clear(self) -> None:
        """Clear marks and hide the filter."""
        self.marked.clear()
        self.anchor = None
        self._redraw_marks()
        box = self.query_one("#filter", Input)
        if box.display:
            box.display = False
            self.query_one("#queue").focus()

    def action_filter(self) -> None:
        """Show the filter box."""
        box = self.query_one("#filter", Input)
        box.display = True
        box.focus()

    def show_only(self, needle: str) -> None:
        """Filter the queue to ``needle`` (e.g. a consolidation's id), box shown."""
        box = self.query_one("#filter", Input)
        box.display = True
        box.value = needle  # posts Input.Changed → reload
        self.query_one("#queue").focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.needle = event.value.strip()
        self.reload(self.current_id)

    @on(Input.Submitted, "#filter")
    def _filter_done(self, _event: Input.Submitted) -> None:
        self.query_one("#queue").focus()

    def action_sort(self) -> None:
        """Cycle the sort order."""
        names = list(SORTS)
        self.sort = names[(names.index(self.sort) + 1) % len(names)]
        self.reload(self.current_id)
