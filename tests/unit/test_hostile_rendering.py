"""Hostile content is inert everywhere: rendered screens, not only the escaping function.

Hostile strings (Rich/Textual markup incl. ``[@click=app.quit]`` and ``[link=…]``, CSI and
OSC incl. OSC 52 / OSC 8 / title, 8-bit C1, bidi overrides, NUL, 30k characters) go into a
demo brain's reflections, user neurons, domain and skill names, and into a proposal's
summary, rationale, params and notes (queued through ``intake.submit``, then rewritten in
the brain file: intake refuses control and bidi characters, but a brain written by an
older version, or by hand, may hold anything).  The app then renders the
Overview and Triage screens (plus notifications, help, the command palette, the audit view
and the invalidate modal); the frame the driver would write to the terminal must carry no
control, C1 or bidi character and no escape sequence other than colours and cursor moves,
no segment may carry a link or an ``@click`` action, the literal brackets must show, and
the app must still be running.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import sqlite3
import unicodedata
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rich.console import Console
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen

from brainview.core import fsrs_math
from brainview.demo.generator import DEMO_NOW, DemoInfo, DemoSpec
from brainview.services import intake
from brainview.services.project import Project
from brainview.store.discovery import discover
from brainview.tui.app import BrainviewApp, make_app
from brainview.tui.clock import frozen
from brainview.tui.lifecycle import InvalidateScreen
from brainview.tui.triage import TriageScreen
from brainview.tui.widgets.audit_view import AuditView
from tests.tui_helpers import settle

SMALL = DemoSpec(user_neurons=60, reflections=24, proposals=4)
SIZE = (160, 50)
CLICK = "[@click=app.quit]Q[/]"
LINK = "[link=https://evil.example]L[/link]"
BOLD = "[bold]B[/bold]"
PAYLOADS = [
    CLICK, LINK, BOLD, "[/]", "[$accent]", "\\[", "[[x]]", "\x1b[31m", "\x1b[2J\x1b[H",
    "\x1b]52;c;cm0gLXJmIH4=\x07", "\x1b]8;;https://evil.example\x1b\\l\x1b]8;;\x1b\\",
    "\x1b]0;pwned\x07", "\x9b31m", "\x9d0;title\x9c", "\x90q\x9c", "\x85", "\u202e", "\u2066",
    "\u200f", "\x00", "\x07", "\r", "\x08", "\x7f", "\u200b", "\ufeff", "😀", "日本語", "\n",
]  # fmt: skip
HOSTILE = st.lists(
    st.one_of(st.sampled_from(PAYLOADS), st.text(max_size=6)), min_size=1, max_size=10
).map("".join)
# What may reach the terminal: SGR colours and cursor moves; any other ESC, C0/C1, bidi
# or invisible format character is a leak.
ALLOWED_CSI = re.compile(r"\x1b\[[0-9;]*[mH]")
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def frame(app: BrainviewApp) -> tuple[str, str, list[Any]]:
    """(what the driver writes, the visible text, the segments) of the current screen."""
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    console = Console(
        width=app.size.width, height=app.size.height, file=io.StringIO(), force_terminal=True,
        color_system="truecolor", legacy_windows=False,
    )  # fmt: skip
    raw = update.render_segments(console)
    segments = [seg for line in update.strips for strip in line for seg in strip]
    text = "\n".join("".join(seg.text for strip in line for seg in strip) for line in update.strips)
    return raw, text, segments


def assert_inert(app: BrainviewApp, *literals: str) -> str:
    """Nothing executable reached the frame; ``literals`` show as typed.  Returns the text."""
    raw, text, segments = frame(app)
    rest = ALLOWED_CSI.sub("", raw).replace("\n", "")
    leaks = sorted(
        {f"U+{ord(c):04X}" for c in rest if CONTROL.match(c) or unicodedata.category(c) == "Cf"}
    )
    assert not leaks, f"control/bidi characters reached the terminal: {leaks}"
    for seg in segments:
        if seg.style is not None:
            assert not seg.style.link, f"a link took effect on {seg.text!r}"
            assert not any(k.startswith("@click") for k in seg.style.meta), (
                f"@click on {seg.text!r}"
            )
    assert app.is_running and app.return_code is None
    for literal in literals:
        assert literal in text, f"{literal!r} not shown literally"
    return text


def run(root: Path, scenario: Callable[[Any, BrainviewApp], Awaitable[None]], **kw: Any) -> None:
    """Run ``scenario(pilot, app)`` in a fresh app on ``root`` (a sync test can call it)."""

    async def main() -> None:
        app = make_app(discover(root), clock=frozen(DEMO_NOW), decider="tester", **kw)
        async with app.run_test(size=SIZE, notifications=True, tooltips=True) as pilot:
            await settle(pilot)
            await scenario(pilot, app)

    asyncio.run(main())


def inject(root: Path, info: DemoInfo, h: list[str]) -> str:
    """Write hostile strings into both brains and queue a hostile proposal first in line."""
    user, agent = (sqlite3.connect(root / ".spikuit" / p / "circuit.db") for p in ("", "agent"))
    retired = set(info.retired_user_ids)
    live = [u for u in info.user_ids if u not in retired]
    targets, crowd = live[:2], live[2:40]
    user.executemany("UPDATE neuron SET domain=? WHERE id=?", [(CLICK + h[0], n) for n in crowd])
    user.executemany("UPDATE neuron SET content=? WHERE id=?", [(BOLD + h[1], n) for n in targets])
    refl = info.reflection_ids[:3]
    agent.executemany("UPDATE neuron SET content=? WHERE id=?", [(CLICK + h[2], r) for r in refl])
    agent.executemany(
        "UPDATE neuron SET domain=? WHERE id=?",
        [(LINK + h[3], r) for r in info.reflection_ids[3:15]],
    )
    user.commit()
    user.close()
    agent.commit()
    raw = {
        "id": "prop-hostile", "kind": "set_domain",
        "params": {"neurons": targets, "domain": "placeholder"},
        "rationale": "placeholder", "runtime": LINK,
        "consulted": [{"reflection": r, "note": "placeholder"} for r in refl],
        "created_at": fsrs_math.format_ts(DEMO_NOW.replace(month=10)),
    }  # fmt: skip
    with Project.locate(root, write_agent=True) as p:
        intake.submit(p, [raw], now=DEMO_NOW)
    domain = (BOLD + h[4])[:128]
    agent.execute(
        "UPDATE brainview_proposal SET params_json = ?, rationale = ?, summary = ? "
        "WHERE id = 'prop-hostile'",
        (
            json.dumps({"neurons": targets, "domain": domain}, ensure_ascii=False),
            CLICK + h[5],
            f"move 2 neuron(s) to {domain}",
        ),
    )
    agent.execute(
        "UPDATE brainview_consult SET note = ? WHERE proposal_id = 'prop-hostile'", (LINK + h[1],)
    )
    agent.commit()
    agent.close()
    return "prop-hostile"


async def overview_then_triage(pilot: Any, app: BrainviewApp) -> None:
    assert_inert(app, CLICK[:20])  # domain names on the overview
    await pilot.press("2")
    await settle(pilot)
    assert isinstance(app.screen, TriageScreen) and app.screen.current_id == "prop-hostile"
    assert_inert(app, CLICK, BOLD, LINK[:12])


counter = iter(range(10_000))


@settings(
    max_examples=3, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip
@given(h=st.lists(HOSTILE, min_size=6, max_size=6))
@example(h=["".join(PAYLOADS)] * 6)
def test_overview_and_triage_render_hostile_strings_inert(make_demo: Any, h: list[str]) -> None:
    root, info = make_demo(SMALL, f"h{next(counter)}")
    inject(root, info, h)
    run(root, overview_then_triage, start="overview")


def test_thirty_thousand_characters_are_truncated_with_a_count(make_demo: Any) -> None:
    root, info = make_demo(SMALL, "long")
    inject(root, info, ["x" * 30_000] * 6)

    async def scenario(pilot: Any, app: BrainviewApp) -> None:
        text = assert_inert(app, CLICK, BOLD)
        assert re.search(r"\[\+\d{4,} chars\]", text), "long text not truncated with a count"

    run(root, scenario, start="triage")


def test_error_notification_help_and_palette_are_inert(make_demo: Any, monkeypatch: Any) -> None:
    """Another maintainer (with a hostile name) decided the proposal first: the refusal
    names them in a notification.  Then the help screen and the command palette, with
    markup typed into its search box."""
    monkeypatch.setattr(TriageScreen, "POLL_SECONDS", 3600.0)  # no reload before the key
    root, info = make_demo(SMALL, "notify")
    pid = inject(root, info, list(PAYLOADS[:6]))
    mallory = CLICK + "\x1b]52;c;cm0=\x07\x9b31m\u202e" + LINK

    async def scenario(pilot: Any, app: BrainviewApp) -> None:
        from brainview.services import review

        assert app.screen.current_id == pid
        with Project.locate(root, write_agent=True) as p:
            review.decide(p, pid, "accept", decider="mallory", now=DEMO_NOW)
        conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
        conn.execute("UPDATE brainview_decision SET decider = ?", (mallory,))  # planted
        conn.commit()
        conn.close()
        await pilot.press("a")
        await settle(pilot)
        assert_inert(app, "already decided", CLICK)
        await pilot.press("f1")
        await settle(pilot)
        assert_inert(app, "Keys here")
        await pilot.press("escape", "ctrl+p")
        await settle(pilot)
        await pilot.press(*"[@click=app.quit]")
        await settle(pilot)
        assert_inert(app, "[@click=app.quit]")
        await pilot.press("escape")
        await settle(pilot)
        assert_inert(app)

    run(root, scenario, start="triage")


class _AuditHost(ModalScreen[None]):
    """Test host for audit views (the reflection screen mounts one the same way)."""

    def __init__(self, ids: list[str]) -> None:
        super().__init__()
        self.ids = ids

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            for _rid in self.ids:
                yield AuditView(show_content=True)

    def on_mount(self) -> None:
        for view, rid in zip(self.query(AuditView), self.ids, strict=True):
            view.reflection_id = rid


def test_demo_adversarial_reflections_are_inert_in_triage_audit_and_invalidate(
    make_demo: Any,
) -> None:
    root, info = make_demo(DemoSpec(), "adversarial")
    raw = {"id": "prop-adv", "kind": "note", "params": {}, "consulted": info.adversarial_ids,
           "created_at": fsrs_math.format_ts(DEMO_NOW.replace(month=10))}  # fmt: skip
    with Project.locate(root, write_agent=True) as p:
        intake.submit(p, [raw], now=DEMO_NOW)

    async def scenario(pilot: Any, app: BrainviewApp) -> None:
        assert app.screen.current_id == "prop-adv"
        assert_inert(app, "[@click=app.quit]Click here[/]", "[bold red]IMPORTANT")
        app.push_screen(_AuditHost(info.adversarial_ids))
        await settle(pilot)
        assert_inert(app, "origin", "[@click=app.quit]Click here[/]")
        app.pop_screen()
        app.push_screen(InvalidateScreen(info.adversarial_ids))
        await settle(pilot)
        assert_inert(app, "blast radius", "[@click=app.quit]", "[$accent]theme var[/]")

    run(root, scenario, start="triage")


@pytest.mark.compat
def test_real_spikuit_hostile_brain_renders_inert(tmp_path: Path) -> None:
    from tests.compat.spikuit_builder import build_spikuit_project

    built = build_spikuit_project(tmp_path / "proj", hostile=True, anchor=DEMO_NOW)
    hostile = built["user"]["ids"]["hostile"]
    agent_ids = built["agent"]["ids"]["all"]
    raw = {
        "id": "prop-spk", "kind": "set_domain", "params": {
            "neurons": [hostile["click_markup"], hostile["escapes"], hostile["bidi"]],
            "domain": "[b]hostile-domain[/b]"},
        "consulted": [agent_ids[-1]], "retrieved": [agent_ids[0]],
        "created_at": fsrs_math.format_ts(DEMO_NOW.replace(month=10)),
    }  # fmt: skip
    with Project.locate(tmp_path / "proj", write_agent=True) as p:
        intake.submit(p, [raw], now=DEMO_NOW)

    async def scenario(pilot: Any, app: BrainviewApp) -> None:
        assert_inert(app, "[b]hostile-domain[/b]")
        await pilot.press("2")
        await settle(pilot)
        assert app.screen.current_id == "prop-spk"
        assert_inert(app, "[@click=app.quit]Quit now[/]", "[link=http://x]x[/link]")

    run(tmp_path / "proj", scenario, start="overview")


@pytest.mark.parametrize("field", ["id", "skill", "runtime"])
def test_intake_refuses_control_characters_in_identifiers(make_demo: Any, field: str) -> None:
    """Identifiers are shown in every list, so intake keeps them printable (free text
    refuses controls too; markup in either is accepted as data and shown inert)."""
    from brainview.errors import InvalidInputError

    root, _info = make_demo(SMALL, f"ident-{field}")
    raw = {"kind": "note", "params": {}, field: "p-\x1b]52;c;cm0=\x07\u202e"}
    with Project.locate(root, write_agent=True) as p, pytest.raises(InvalidInputError) as err:
        intake.submit(p, [raw], now=DEMO_NOW)
    assert str(err.value) == f"proposal[0].{field}: control character U+001B not allowed"


def test_stored_hostile_id_and_skill_render_inert(make_demo: Any) -> None:
    root, info = make_demo(SMALL, "stored-ident")
    inject(root, info, ["s"] * 6)
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    conn.execute(
        "UPDATE brainview_proposal SET skill = ? WHERE id = 'prop-hostile'",
        ("cur\x1b]52;c;cm0=\x07\u202e" + CLICK,),
    )
    conn.commit()
    conn.close()
    run(root, overview_then_triage, start="overview")


def test_suspicion_and_state_marks_render_inert() -> None:
    """The renderables other screens use for ☣ / ⚠ / ⊘ marks keep flag text inert."""
    from brainview.services.lifecycle.blast import add_flags
    from brainview.tui.widgets.suspicion import queue_flag, render_suspicion, state_line

    hostile = CLICK + "\x1b]8;;https://evil.example\x1b\\l\x9b31m\u202e\x00"
    value = add_flags(None, [{"kind": "tombstone", "reflection": hostile, "match": hostile}])
    console = Console(file=io.StringIO(), width=300, force_terminal=True, color_system="truecolor")
    console.print(render_suspicion(value))
    console.print(state_line("challenged", hostile, hostile))
    out = console.file.getvalue()  # type: ignore[attr-defined]
    rest = ALLOWED_CSI.sub("", out).replace("\n", "")
    assert not [c for c in rest if CONTROL.match(c) or unicodedata.category(c) == "Cf"]
    assert "☣ suspect (1)" in out and "⚠ challenged" in out and CLICK in rest
    assert queue_flag(False, value).plain == "☣" and queue_flag(True, value).plain == "↻"
    assert render_suspicion(None) is None and queue_flag(False, None).plain == " "


def test_recall_box_renders_hostile_lessons_and_typing_inert(make_demo: Any) -> None:
    """Recall for the hostile proposal: hostile lessons rank and show literally; hostile
    words typed in the box too (the hits, the box and the status line)."""
    from brainview.store.recall_handle import close_all
    from brainview.tui.recall import RecallScreen

    root, info = make_demo(SMALL, "recall-hostile")
    inject(root, info, ["".join(PAYLOADS)] * 6)

    async def scenario(pilot: Any, app: BrainviewApp) -> None:
        assert app.screen.current_id == "prop-hostile"
        await pilot.press("w")
        await settle(pilot)
        assert isinstance(app.screen, RecallScreen)
        box = app.screen.box
        assert set(info.reflection_ids[:3]) & set(box.hit_ids)
        assert_inert(app, CLICK, "recall")
        await pilot.press("ctrl+t", *"[bold]x[/bold] click quit", "enter")
        await settle(pilot)
        assert box.error == "" and box.hit_ids
        assert_inert(app, "[bold]x[/bold]", CLICK)

    try:
        run(root, scenario, start="triage")
    finally:
        close_all()
