"""Which triage verbs apply now, and why a hidden one does nothing: what the footer
shows and what a key says when it is pressed anyway."""

from __future__ import annotations

from typing import TYPE_CHECKING

import brainview.tui.triage.texts as texts

if TYPE_CHECKING:
    from brainview.tui.triage.screen import TriageScreen

ROW_VERBS = ("accept", "reject", "dismiss_proposal", "skip", "mark", "range_mark")
"""Verbs that need a row under the cursor."""


def allowed(s: TriageScreen, action: str) -> bool:
    """Whether ``action`` applies now (``False`` hides it from the footer)."""
    if action in ROW_VERBS:
        if not s.rows:
            return False
        if action == "accept" and not s.marked and _current_stale(s):
            return False
    if action == "undo":
        return bool(s.session_units or s.last_decision)
    if action == "recall":
        return s.detail is not None and s.detail.id == s.current_id
    if action == "edit_policy":
        d = s.detail
        return (
            d is not None
            and d.id == s.current_id
            and d.kind == "summarize_community"
            and d.status == "pending"
            and not d.stale
            and not s.marked
        )
    return True


def _current_stale(s: TriageScreen) -> bool:
    row = s.queue.row(s.current_id)
    d = s.detail
    return bool((row and row.stale) or (d is not None and d.id == s.current_id and d.stale))


def refusal(s: TriageScreen, what: str) -> str:
    """Why a verb hidden from the footer does nothing here."""
    from brainview.tui.role_gate import refusal as role_refusal

    role = role_refusal(s, what)
    if role is not None:
        return role
    if what == "undo":
        return texts.UNDO_REFUSAL
    if not s.rows:
        return texts.EMPTY_REFUSAL
    if what == "accept":
        row = s.queue.row(s.current_id)
        d = s.detail
        return texts.stale_refusal((row.stale if row else None) or (d.stale if d else None))
    return texts.edit_refusal(s.detail, s.current_id, bool(s.marked))
