"""Triage's words and glyphs: one vocabulary, never-reviewed reads as such, and the
policy editor shows titles for references while storing them exactly."""

from __future__ import annotations

from rich.console import Console
from textual.app import App
from textual.widgets import TextArea

from brainview.core.grading import FIRE, MISS, STRONG, WEAK
from brainview.core.ref_tokens import shown_text, stored_text
from brainview.core.vocabulary import GRADE_GLYPH, grade_label, grade_run, review_state
from brainview.services.review.detail import ProposalDetail, ReflectionView
from brainview.tui.triage.render_agent import render_agent_side
from brainview.tui.widgets.policy_editor import PolicyEditor


def _text(renderable: object, width: int = 120) -> str:
    console = Console(width=width, file=None, record=True, color_system=None)
    with console.capture() as cap:
        console.print(renderable)
    return cap.get()


def _view(**kw: object) -> ReflectionView:
    base: dict[str, object] = dict(
        id="r-1", role="consulted", stance="support", note=None, content="# Lesson\nbody",
        skill="tutor", live=True, stability=None, retrievability=0.0, recent_grades=[],
    )  # fmt: skip
    base.update(kw)
    return ReflectionView(**base)  # type: ignore[arg-type]


def _detail(*views: ReflectionView) -> ProposalDetail:
    return ProposalDetail(
        id="p-1", kind="add_synapse", skill="curator", status="pending", summary="link",
        rationale="", created_at="2026-11-20T10:49:00", params={}, runtime=None, stale=None,
        consulted=list(views),
    )  # fmt: skip


def test_grades_have_one_glyph_each_distinct_from_verdicts() -> None:
    assert [grade_label(g) for g in (STRONG, FIRE, WEAK, MISS)] == [
        "█ strong", "▅ fire", "▃ weak", "▁ miss",
    ]  # fmt: skip
    assert grade_label(None) == "no grade"
    assert grade_run([MISS, STRONG]) == "▁█"
    assert not set(GRADE_GLYPH.values()) & set("✓✗↷⊘⚠●")


def test_a_never_reviewed_reflection_reads_as_never_reviewed() -> None:
    assert review_state(None, 0.0) == "never reviewed"
    text = _text(render_agent_side(_detail(_view())))
    assert "never reviewed" in text and "S —" not in text and "R 0.00" not in text
    reviewed = _text(render_agent_side(_detail(_view(stability=2.6, retrievability=0.89))))
    assert "S 2.6d · R 0.89" in reviewed
    assert "accept → █ strong · reject → ▁ miss" in reviewed


def test_references_show_as_titles_and_come_back_exact() -> None:
    raw = "Keep [user:n-1] apart from [user:n-2]; see [user:n-1] and [user:gone]."
    shown, tokens = shown_text(raw, {"n-1": "Ring", "n-2": "Ring"})
    assert shown == "Keep ⟦Ring⟧ apart from ⟦Ring ·2⟧; see ⟦Ring⟧ and [user:gone]."
    assert stored_text(shown, tokens) == raw
    edited = shown.replace("Keep", "Never merge")
    assert stored_text(edited, tokens) == raw.replace("Keep", "Never merge")
    # A text that already holds a token literally is left as it is (no ambiguity).
    literal = "⟦Ring⟧ is [user:n-1]"
    assert shown_text(literal, {"n-1": "Ring"}) == (literal, {})


async def test_the_policy_editor_shows_titles_and_stores_references() -> None:
    draft = "Prefer [user:n-1] over [user:n-2]."
    results: list[str | None] = []

    class Host(App[None]):
        def on_mount(self) -> None:
            self.push_screen(
                PolicyEditor("pol-1", draft, {"n-1": "Ring — edge cases", "n-2": "Category"}),
                results.append,
            )

    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        area = app.screen.query_one(TextArea)
        assert area.text == "Prefer ⟦Ring — edge cases⟧ over ⟦Category⟧."
        assert "[user:" not in area.text
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert results == [draft]
