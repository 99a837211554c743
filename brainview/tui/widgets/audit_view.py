"""The audit trail of one reflection: origin, grades, STDP, merges, lifecycle, influence.

:class:`AuditView` loads its trail itself in a thread worker (set ``reflection_id``) and
renders it with :func:`render_trail`; every string from the brain is shown inert
through :mod:`brainview.core.safe_text`.  Long lists show the first rows and a count
(grades an undo took back are read capped, and shown struck, "undone by …");
``brainview reflect inspect ID --json`` has more.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

from brainview.core.outcomes import result_word
from brainview.core.safe_text import one_line, safe_text
from brainview.core.vocabulary import GLYPH, GRADE_GLYPH, grade_label, mark
from brainview.core.vocabulary import STATUS_MARK as VOCAB_STATUS
from brainview.services.audit import AuditTrail
from brainview.tui.widgets.suspicion import state_line, state_mark
from brainview.tui.workers import WorkFailed, run_service

if TYPE_CHECKING:
    from brainview.services.session import Session

MAX_ROWS = 40
GRADE_MARK = {g: grade_label(g) for g in GRADE_GLYPH}
STATUS_MARK = {"pending": mark("pending"), **VOCAB_STATUS}


def _when(ts: str | None) -> str:
    return one_line((ts or "")[:16].replace("T", " "), 16)


def _section(
    title: str, rows: list[Text], empty: str, total: int | None = None
) -> list[RenderableType]:
    """``total``: how many there are when ``rows`` were read capped."""
    count = max(len(rows), total or 0)
    out: list[RenderableType] = [Text(f"\n{title} ({count})", style="bold underline")]
    if not rows:
        out.append(Text(f"  {empty}", style="dim italic"))
    out += rows[:MAX_ROWS]
    if count > MAX_ROWS:
        out.append(Text(f"  … {count - MAX_ROWS} more (reflect inspect --json)", style="dim"))
    return out


def _origin(t: AuditTrail) -> Text:
    o = t.origin
    if o.kind == "rejection":
        line = Text.assemble(
            ("✗ written by a rejection", "bold"),
            f" of {one_line(o.proposal_id, 40)} ({one_line(o.proposal_kind, 20)})",
            f" · decision {one_line(o.decision_id, 24)} by {one_line(o.actor, 40)}",
            f" · {_when(o.at)}",
        )
        if o.reason:
            line.append(" — ")
            line.append_text(safe_text(o.reason, multiline=False, limit=200))
        return line
    if o.kind == "outcome":
        line = Text.assemble(
            (f"{GLYPH['miss']} written by a failed outcome", "bold"),
            f" {one_line(o.proposal_id, 40)} · decision {one_line(o.decision_id, 24)}",
            f" by {one_line(o.actor, 40)} · {_when(o.at)}",
        )
        if o.reason:
            line.append(" — ")
            line.append_text(safe_text(o.reason, multiline=False, limit=200))
        return line
    if o.kind == "imported":
        return Text.assemble(
            ("↧ imported", "bold"),
            f" through Spikuit by {one_line(o.actor, 60)} · {_when(o.at)}",
            f" · {one_line(o.reason, 60)}",
        )
    return Text.assemble(
        ("• pre-existing", "bold"), f" · created {_when(t.created_at)} · no record of its writer"
    )


def _grades(t: AuditTrail) -> list[Text]:
    """Every grade ever fired, in order; one an undo took back is struck and says who
    undid it (it is no longer in the brain, but stays in the trail)."""
    rows = []
    for g in t.grade_history()[:MAX_ROWS]:
        undone = g.fate == "undone"
        mark = (GRADE_MARK.get(g.grade, "?"), "bold strike" if undone else "bold")
        line = Text.assemble(_when(g.fired_at), "  ", mark, "  ")
        if g.via == "brainview":
            line.append(
                f"{one_line(g.proposal_id, 32)} ({one_line(g.proposal_kind, 16)}) "
                f"{one_line(result_word(g.proposal_kind, g.verdict), 8)} by "
                f"{one_line(g.decider, 32)} · {one_line(g.stance, 9)}",
                "strike dim" if undone else "",
            )
        else:
            line.append(f"outside brainview · session {one_line(g.session_id, 32) or '—'}", "dim")
        if undone:
            line.append(
                f"  ↶ undone by {one_line(g.undone_by, 32) or '?'} {_when(g.undone_at)}", "italic"
            )
        rows.append(line)
    return rows


def _named(rid: str, t: AuditTrail, titles: dict[str, str]) -> str:
    """A lesson as a person reads it: ``this lesson`` or ``⟦title⟧`` (its id when the
    title could not be read)."""
    if rid == t.reflection_id:
        return "this lesson"
    title = titles.get(rid)
    return f"⟦{one_line(title, 40)}⟧" if title else one_line(rid, 24)


def _weights(t: AuditTrail, titles: dict[str, str]) -> list[Text]:
    rows = []
    for w in t.weight_changes:
        edge = f"{_named(w.pre, t, titles)} -{one_line(w.type, 12)}→ {_named(w.post, t, titles)}"
        after = f"{w.after:.3f}" if w.after is not None else "—"
        change = f"{w.before:.3f} → {after}" if w.before is not None else f"linked at {after}"
        rows.append(Text(f"{_when(w.at)}  {edge}  {change}  · {one_line(w.decision_id, 20)}"))
    return rows


def _lifecycle(t: AuditTrail) -> list[Text]:
    rows = []
    for e in t.lifecycle:
        mark = state_mark(e.state)
        line = Text(f"{_when(e.at)}  ").append_text(mark if mark.plain else Text("● live", "bold"))
        line.append(
            f"  {one_line(e.action, 12)} by {one_line(e.actor, 40)} · {one_line(e.batch_id, 20)}"
        )
        if e.reason:
            line.append(" — ")
            line.append_text(safe_text(e.reason, multiline=False, limit=200))
        if e.undone_at:
            line.append(f"  (undone by {one_line(e.undone_by, 40)} {_when(e.undone_at)})", "italic")
        rows.append(line)
    return rows


def _influenced(t: AuditTrail) -> list[Text]:
    rows = []
    for p in t.influenced:
        status = STATUS_MARK.get(p.status, one_line(p.status, 12))
        line = Text.assemble(
            (status, "bold"),
            f"  {one_line(p.proposal_id, 32)} {one_line(p.kind, 16)} · {one_line(p.role, 10)}",
            f"/{one_line(p.stance, 9)}" if p.stance else "",
            "  ",
        )
        line.append_text(safe_text(p.summary, multiline=False, limit=80))
        if p.decider:
            line.append(f"  by {one_line(p.decider, 32)}", "dim")
        rows.append(line)
    return rows


def render_trail(
    t: AuditTrail,
    *,
    show_content: bool = False,
    titles: dict[str, str] | None = None,
    waiting: list[str] | None = None,
) -> RenderableType:
    """The whole trail as inert text (``titles``: the other lessons it names, by id;
    ``waiting``: the lines of votes on it waiting for a second person)."""
    titles = titles or {}
    head = Text.assemble(
        (one_line(t.reflection_id, 40), "bold"),
        f"  {one_line(t.skill, 16) or '∅'} · {one_line(t.type, 16)}",
        f" · created {_when(t.created_at)}",
    )
    parts: list[RenderableType] = [head]
    status = state_line(t.status.state, t.status.reason, t.status.actor)
    parts.append(status if status.plain else Text("● live", style="bold"))
    parts += [Text(one_line(w, 300), style="bold yellow") for w in waiting or ()]
    if show_content:
        parts.append(safe_text(t.content, limit=1_500))
    parts += [Text("\norigin", style="bold underline"), _origin(t)]
    parts += _section("grades", _grades(t), "never graded", t.grade_history_total)
    parts += _section("STDP and links", _weights(t, titles), "no weight changes recorded")
    merges = [
        Text(f"{_when(m.at)}  {m.role.replace('_', ' ')} {_named(m.other, t, titles)}")
        for m in t.merges
    ]
    parts += _section("merges", merges, "none")
    parts += _section("lifecycle", _lifecycle(t), "never challenged or invalidated")
    parts += _section("proposals it influenced", _influenced(t), "none")
    return Group(*parts)


class AuditView(Static):
    """A reflection's audit trail; set ``reflection_id`` and it loads (thread worker)."""

    DEFAULT_CSS = """
    AuditView { height: auto; padding: 0 1; }
    """

    reflection_id: reactive[str | None] = reactive(None)
    """Which reflection to show (``None``: nothing)."""

    trail: reactive[AuditTrail | None] = reactive(None, layout=True)
    """The loaded trail (``None`` while loading)."""

    error: reactive[str] = reactive("", layout=True)
    """One line when loading failed."""

    @dataclass
    class Loaded(Message):
        """A trail was read."""

        trail: AuditTrail
        mark: int = 0
        """The lifecycle fingerprint read just before the trail
        (:func:`brainview.services.review.flags.lifecycle_mark`)."""
        titles: dict[str, str] = field(default_factory=dict)
        """The other lessons the trail names (links, merges), id → title."""
        waiting: list[str] = field(default_factory=list)
        """Votes on it waiting for a second person (the two-person rule), one line each."""

    @dataclass
    class Failed(Message):
        """Reading failed; ``text`` is one line."""

        reflection_id: str
        text: str

    def __init__(self, *, show_content: bool = False, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.show_content = show_content
        self.titles: dict[str, str] = {}
        """The other lessons the loaded trail names, id → title."""
        self.waiting: list[str] = []
        """Votes on the reflection waiting for a second person, one line each."""

    def watch_reflection_id(self, rid: str | None) -> None:
        self.trail, self.error = None, ""
        if rid:
            self._load(rid)

    def reload(self) -> None:
        """Read the trail again (after a lifecycle change)."""
        if self.reflection_id:
            self._load(self.reflection_id)

    def _load(self, rid: str) -> None:
        def read(session: Session) -> tuple[AuditTrail, int, dict[str, str], list[str]]:
            from brainview.services.audit import trail
            from brainview.services.readout.named import lesson_titles
            from brainview.services.review.approvals import open_approvals
            from brainview.services.review.flags import lifecycle_mark

            with session.project() as project:
                mark = lifecycle_mark(project)
                t = trail(project, rid, undone_limit=MAX_ROWS)
                ends = [e for w in t.weight_changes for e in (w.pre, w.post)]
                named = lesson_titles(project, [*ends, *(m.other for m in t.merges)])
                waiting = [
                    f"{a.line} — withdraw: brainview proposals withdraw {a.vote_id}"
                    for a in open_approvals(project)
                    if rid in a.reflections
                ]
                return t, mark, named, waiting

        def done(result: tuple[AuditTrail, int, dict[str, str], list[str]]) -> None:
            self.post_message(self.Loaded(*result))

        run_service(self, read, group="audit-view", done=done, ids=(rid,))

    @on(WorkFailed)
    def _work_failed(self, message: WorkFailed) -> None:
        message.stop()  # shown in the widget
        if message.group == "audit-view" and message.ids:
            self.post_message(self.Failed(message.ids[0], message.text))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        if message.trail.reflection_id == self.reflection_id:
            self.titles = message.titles
            self.waiting = message.waiting
            self.trail = message.trail

    @on(Failed)
    def _failed(self, message: Failed) -> None:
        if message.reflection_id == self.reflection_id:
            self.error = message.text

    def render(self) -> RenderableType:
        if self.error:
            return Text.assemble(("could not read the audit trail: ", "bold"), self.error)
        if self.trail is None:
            return Text(
                "reading the audit trail…" if self.reflection_id else "", style="dim italic"
            )
        return render_trail(
            self.trail, show_content=self.show_content, titles=self.titles, waiting=self.waiting
        )
