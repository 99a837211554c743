"""The app shell: quitting, moving between panes, a footer that fits, help that shows
the keys in effect.  Each test failed on the console before issue 18."""

from __future__ import annotations

import threading

import pytest
from textual.widgets import Input, Markdown
from textual.widgets._footer import FooterKey

from brainview.config import Config
from brainview.demo.generator import DEMO_NOW
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.clock import frozen
from brainview.tui.footer import Footer
from brainview.tui.help import HelpScreen
from brainview.tui.overview.brain_pane import BrainPane
from brainview.tui.widgets.confirm import ConfirmScreen
from brainview.tui.widgets.reason_prompt import ReasonPrompt
from tests.tui_helpers import settle


class TestQuit:
    """``q`` and ``ctrl+c`` quit (asking first while work is in flight)."""

    @pytest.mark.parametrize("key", ["q", "ctrl+c"])
    async def test_quits_when_idle(self, demo, key: str) -> None:  # type: ignore[no-untyped-def]
        root, _ = demo
        app = make_app(discover(root), clock=frozen(DEMO_NOW), start="overview")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press(key)
            await pilot.pause()
            assert app.return_code == 0
            assert not app.is_running

    async def test_a_read_in_flight_does_not_hold_q(self, demo, monkeypatch) -> None:  # type: ignore[no-untyped-def]
        """A read cut short loses nothing: ``q`` quits at once (it used to warn of
        "changes" while a screen was only loading)."""
        from brainview.services.metrics import stats

        root, _ = demo
        gate = threading.Event()
        real = stats.project_stats

        def slow(project):  # type: ignore[no-untyped-def]
            gate.wait(10)
            return real(project)

        monkeypatch.setattr(stats, "project_stats", slow)
        app = make_app(discover(root), clock=frozen(DEMO_NOW), start="overview")
        try:
            async with app.run_test(size=(120, 40)) as pilot:
                await pilot.pause(0.1)
                assert app.services.running() >= 1
                assert app.services.running(writes_only=True) == 0
                await pilot.press("q")
                await pilot.pause()
                assert not app.is_running
        finally:
            gate.set()

    async def test_asks_while_a_write_is_in_flight(self, demo, monkeypatch) -> None:  # type: ignore[no-untyped-def]
        from brainview.services import review

        root, _ = demo
        gate = threading.Event()
        real = review.decide_many

        def slow(*args, **kwargs):  # type: ignore[no-untyped-def]
            gate.wait(10)
            return real(*args, **kwargs)

        monkeypatch.setattr(review, "decide_many", slow)
        app = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("r")  # reject the first proposal: a reason is optional
            await pilot.pause()
            await pilot.press("enter")  # no reason
            await pilot.pause(0.2)
            assert app.services.running(writes_only=True) == 1
            await pilot.press("q")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)
            assert "still being written" in " ".join(app.screen._lines)
            await pilot.press("n")  # stay
            await pilot.pause()
            assert app.is_running and not isinstance(app.screen, ConfirmScreen)
            gate.set()
            await settle(pilot)
            await pilot.press("q")
            await pilot.pause()
            assert not app.is_running

    async def test_q_types_in_a_text_box(self, demo) -> None:  # type: ignore[no-untyped-def]
        root, _ = demo
        app = make_app(discover(root), clock=frozen(DEMO_NOW), start="overview")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            app.push_screen(ReasonPrompt("why"))
            await pilot.pause()
            await pilot.press("q", "h", "l")
            await pilot.pause()
            assert app.is_running
            assert app.screen.query_one(Input).value == "qhl"


async def test_h_and_l_move_between_panes(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="overview")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        panes = {p.role: p for p in app.screen.query(BrainPane)}
        app.screen.set_focus(panes["user"])
        await pilot.press("l")
        assert app.screen.focused is panes["agent"]
        await pilot.press("h")
        assert app.screen.focused is panes["user"]


def _footer_fits(app) -> None:  # type: ignore[no-untyped-def]
    footer = app.screen.query_one(Footer)
    keys = list(footer.query(FooterKey))
    palette = [k for k in keys if k.has_class("-command-palette")]
    shown = [k for k in keys if k not in palette]
    assert shown, "the footer shows keys"
    right = palette[0].region.x if palette else footer.region.right
    for key in shown:
        assert key.region.width > 0
        assert key.region.right <= right, f"{key.key_display} {key.description} is cut"
    assert any(k.action == "help" for k in shown), "the help key is always in view"


class TestFooter:
    """The footer is never cut mid-word, at 80 or 120 columns, on any top-level screen."""

    @pytest.mark.parametrize("size", [(80, 24), (120, 40)])
    @pytest.mark.parametrize("mode", ["overview", "triage", "communities"])
    async def test_fits(self, demo, mode: str, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
        root, _ = demo
        app = make_app(discover(root), clock=frozen(DEMO_NOW), start=mode)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await pilot.pause(0.2)
            assert app.current_mode == mode
            _footer_fits(app)

    async def test_rebuilt_only_when_the_keys_change(self, demo, monkeypatch) -> None:  # type: ignore[no-untyped-def]
        """Refreshing the bindings with nothing changed leaves the footer as it is (a
        decision refreshes them several times; each rebuild cost a console CPU)."""
        root, _ = demo
        app = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            footer = app.screen.query_one(Footer)
            rebuilt: list[int] = []
            real = footer.recompose

            async def counting() -> None:
                rebuilt.append(1)
                await real()

            monkeypatch.setattr(footer, "recompose", counting)
            for _ in range(5):
                app.screen.refresh_bindings()
                await pilot.pause()
            await settle(pilot)
            assert rebuilt == [], "same keys: no rebuild"
            await pilot.press("slash")  # the filter box has the focus: other keys apply
            await settle(pilot)
            assert rebuilt, "other keys: rebuilt"
            _footer_fits(app)


class TestHelp:
    """Help lists the keys in effect, remaps included, in its table and its guide."""

    async def test_guide_follows_a_remap(self, demo) -> None:  # type: ignore[no-untyped-def]
        root, _ = demo
        config = Config(keys={"triage.accept": "y", "app.pane_right": "ctrl+l"})
        app = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", config=config)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("f1")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            guide = app.screen.query_one(Markdown).source
            assert "`y` accepts" in guide and "`a` accepts" not in guide
            assert "{" not in guide, "every key slot is filled"
            rows = {desc: keys for keys, b in app.screen.keys_here() for desc in [b.description]}
            assert rows["Accept"] == "y"

    async def test_every_guide_key_names_a_binding(self, demo) -> None:  # type: ignore[no-untyped-def]
        from brainview.tui.help.guide import slots
        from brainview.tui.keymap import known_ids

        assert slots() <= set(known_ids()), slots() - set(known_ids())


async def test_export_toast_shows_the_absolute_path(demo, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    monkeypatch.chdir(tmp_path)
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        await pilot.press(*"queue.csv", "enter")
        await settle(pilot)
        said = [n.message for n in app._notifications]
    target = tmp_path / "queue.csv"
    assert target.is_file()
    assert any(m.endswith(f"to {target}") for m in said), said
