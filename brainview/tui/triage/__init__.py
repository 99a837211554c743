"""The triage screen: the queue of proposals, the one under review and what deciding it
grades.  :class:`~brainview.tui.triage.screen.TriageScreen` composes
:class:`~brainview.tui.triage.queue_list.QueueList` and the detail panes
(:mod:`brainview.tui.triage.panes`) and routes their messages."""

from __future__ import annotations

from brainview.tui.triage.screen import TriageScreen

__all__ = ["TriageScreen"]
