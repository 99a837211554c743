"""The keys of triage, each with a stable id (remapped by id in ``[keys]``) and a
tooltip that the help screen lists; refused verbs explain themselves
(:func:`brainview.tui.bindings.explained`)."""

from __future__ import annotations

from textual.binding import Binding, BindingType

from brainview.tui.bindings import explained

BINDINGS: list[BindingType] = [
    *explained(
        Binding(
            "a",
            "accept",
            "Accept",
            id="triage.accept",
            tooltip="Accept: a supporting lesson gets █ strong, an opposing one ▁ miss",
        ),
        "why('accept')",
    ),
    Binding(
        "r",
        "reject",
        "Reject",
        id="triage.reject",
        tooltip="Reject with a reason: a supporting lesson gets ▁ miss, an opposing one █ strong",
    ),
    Binding(
        "d",
        "dismiss_proposal",
        "Dismiss",
        id="triage.dismiss",
        tooltip="Set a stale proposal aside: ↷ dismissed, no verdict, no grades",
    ),
    *explained(
        Binding(
            "E",
            "edit_policy",
            "Edit policy",
            id="triage.edit_policy",
            tooltip="Edit a policy proposal's text, then accept it",
        ),
        "why('edit_policy')",
    ),
    Binding("s", "skip", "Skip", id="triage.skip", tooltip="Next proposal, no decision"),
    *explained(
        Binding(
            "u,ctrl+z",
            "undo",
            "Undo",
            id="triage.undo",
            tooltip="Undo the last decision (a bulk decision as one unit)",
        ),
        "why('undo')",
    ),
    Binding(
        "space",
        "mark",
        "Mark",
        id="triage.mark",
        tooltip="Mark (or unmark) for a bulk decision, then move down one row",
    ),
    Binding("v", "range_mark", "Range", id="triage.range", tooltip="Mark up to here"),
    Binding(
        "slash",
        "filter",
        "Filter",
        id="triage.filter",
        tooltip="Filter the queue; escape clears it",
    ),
    Binding(
        "z",
        "zoom_lessons",
        "Lessons",
        id="triage.zoom_lessons",
        tooltip="All consulted lessons full screen, with what each verdict grades "
        "(z or escape: back)",
    ),
    Binding(
        "n",
        "zoom_neurons",
        "Neurons",
        id="triage.zoom_neurons",
        tooltip="The user neurons this proposal names, full screen (n or escape: back)",
        show=False,
    ),
    Binding(
        "w",
        "recall",
        "Recall",
        id="triage.recall",
        tooltip="Recall for this proposal: the lessons ranked for its draft (not logged)",
    ),
    Binding(
        "W",
        "withdraw_approval",
        "Withdraw",
        id="triage.withdraw_approval",
        tooltip="Withdraw the approval waiting for a second person (yours or the other's)",
        show=False,
    ),
    Binding(
        "H",
        "held_back",
        "Held back",
        id="triage.held_back",
        tooltip="Drafts the curator held back after recall: should they have been proposed?",
        show=False,
    ),
    Binding("o", "sort", "Sort", id="triage.sort", tooltip="Cycle the sort order", show=False),
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
    Binding(
        "escape",
        "clear",
        "Clear",
        id="triage.clear",
        tooltip="Clear the filter and the marks (or leave the full-screen lessons)",
        show=False,
    ),
]
