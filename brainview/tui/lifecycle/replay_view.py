"""What replay says a lesson changed, under the blast radius in the lifecycle dialog.

:class:`ReplayLine` reads :func:`brainview.services.replay.replay` for the dialog's
targets in a thread worker (read-only: nothing is logged) and shows one line per
target: recalls whose hit list would differ in a way that matters, decisions and
held-back drafts that would change.  Every id from a brain is shown inert.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.reactive import var
from textual.widgets import Static

from brainview.core.safe_text import one_line
from brainview.tui.workers import WorkFailed, run_service

if TYPE_CHECKING:
    from brainview.services.replay.model import Replay
    from brainview.services.session import Session

MAX_TARGETS = 5
"""Targets replayed in the dialog (the rest: ``brainview reflect replay``)."""
RECALLS = 100
"""Recalls replayed per target in the dialog, newest first."""


def replay_text(found: Sequence[Replay], more: int = 0) -> Text:
    """``replay r-x: 2 of 3 recall(s) change (top, sole_oppose) · 1 of 2 decision(s) …``."""
    out = Text()
    for i, r in enumerate(found):
        recalls, decisions, held = r.affected
        why = sorted({c for x in r.recalls for c in x.changes})
        if i:
            out.append("\n")
        out.append("replay ", style="bold")
        out.append(f"{one_line(r.reflection_id, 24)}: ")
        out.append(
            f"{recalls} of {len(r.recalls)} recall(s) change"
            + (f" ({', '.join(why)})" if why else "")
            + f" · {decisions} of {len(r.decisions)} decision(s)"
            + f" · {held} of {len(r.held_back)} held-back draft(s) would change"
        )
        if r.recalls_total > len(r.recalls):
            out.append(f" · {r.recalls_total - len(r.recalls)} older not replayed", style="dim")
    if more:
        out.append(f"\n… and {more} more target(s): brainview reflect replay ID", style="dim")
    return out


class ReplayLine(Static):
    """Replay of the dialog's targets (``reading…`` until the worker answers)."""

    replays: var[tuple[Replay, ...]] = var(())
    """What was read, one per target replayed."""

    def load(self, targets: Sequence[str]) -> None:
        """Replay ``targets`` (the first :data:`MAX_TARGETS`) in a worker."""
        shown = list(dict.fromkeys(targets))[:MAX_TARGETS]
        more = max(0, len(dict.fromkeys(targets)) - len(shown))
        self.update(Text("replay: reading…", style="dim italic"))

        def read(session: Session) -> list[Replay]:
            from brainview.errors import NotFoundError
            from brainview.services.replay import replay

            out = []
            with session.project() as project:
                for rid in shown:
                    try:
                        out.append(replay(project, rid, now=session.clock(), limit=RECALLS))
                    except NotFoundError:
                        continue
            return out

        def done(found: list[Replay]) -> None:
            self.replays = tuple(found)
            self.update(replay_text(found, more) if found else Text("replay: nothing to replay"))

        run_service(self, read, group="lifecycle-replay", done=done)

    @on(WorkFailed)
    def _failed(self, message: WorkFailed) -> None:
        message.stop()  # said here, under the blast radius
        self.update(Text.assemble(("could not replay: ", "bold"), message.text))
