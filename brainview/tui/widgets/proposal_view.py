"""Where the proposal renderables used to live: they are now under
:mod:`brainview.tui.triage` (:mod:`~brainview.tui.triage.render_proposal`,
:mod:`~brainview.tui.triage.render_agent`); the marks come from
:mod:`brainview.core.vocabulary`.  Kept for the recall views that import from here."""

from __future__ import annotations

from brainview.core.vocabulary import SEEN_MARK, STANCE_MARK
from brainview.tui.triage.render_agent import RETRIEVED_NOTE, RETRIEVED_TITLE, render_retrieved

__all__ = ["RETRIEVED_NOTE", "RETRIEVED_TITLE", "SEEN_MARK", "STANCE_MARK", "render_retrieved"]
