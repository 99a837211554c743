"""The frictions a first trial of the communities screen and the reflection view hit,
each driven through the real app (time frozen) and failing on the code before.

Labels were word salad, skills cryptic, nothing said what a community is, numbers
disagreed between the list and the reflection view, the forecast's crossing was lost on
a 0–1 axis, ``3`` went back to the last reflection, the blast radius showed raw
``[user:…]`` tokens and an invalidated reflection read "⚠ retired" under a ⊘ legend.
"""

from __future__ import annotations

import re

import pytest

from brainview.core.community_label import skeleton
from brainview.demo.generator import DEMO_NOW
from brainview.services import lifecycle
from brainview.services.project import Project
from brainview.store.discovery import discover
from brainview.tui.app import BrainviewApp, make_app
from brainview.tui.clock import frozen
from brainview.tui.communities import CommunitiesScreen
from brainview.tui.lifecycle import InvalidateScreen
from brainview.tui.lifecycle.radius import MarkList
from brainview.tui.reflection import ReflectionScreen
from brainview.tui.reflection.parts import FsrsCard
from brainview.tui.widgets.curve_plots import ForecastPlot
from tests.tui_helpers import settle


def _app(root, start: str = "communities") -> BrainviewApp:  # type: ignore[no-untyped-def]
    return make_app(discover(root), clock=frozen(DEMO_NOW), start=start, decider="pilot")


def screen_text(app: BrainviewApp) -> str:
    """The characters on screen now."""
    update = app.screen._compositor.render_update(full=True)
    return "\n".join("".join(s.text for strip in line for s in strip) for line in update.strips)


async def test_labels_read_as_the_most_typical_lesson(demo) -> None:  # type: ignore[no-untyped-def]
    """A label is the (folded) first line of one of its members, not a bag of words."""
    root, _ = demo
    app = _app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CommunitiesScreen)
        clusters = screen.clusters
        data = clusters.data
        assert data is not None
        with Project.open(discover(root)) as p, p.agent.read() as conn:
            from brainview.store.community_reads import heads

            for row in clusters.rows[:12]:
                ids = [data.ids[k] for k in data.members(row.number)]
                firsts = {skeleton(t) for t in heads(conn, ids, 2_000).values()}
                assert row.label in firsts, row.label
                assert " · " not in row.label and len(row.label.split()) >= 6
        assert clusters.rows[0].label.startswith("Proposed merging ⟦…⟧ and ⟦…⟧. User rejected")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_skills_are_named_and_a_line_says_what_a_community_is(demo, size) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = _app(root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CommunitiesScreen)
        cell = screen.clusters.table.get_row_at(0)[3].plain
        top = max(screen.clusters.rows[0].skills.items(), key=lambda kv: kv[1])
        assert cell.startswith(f"{top[0]} {top[1]}")  # "curator 8 …", not "c8 q3 t2"
        assert not re.search(r"\b[a-z]\d+\b", cell)
        text = screen_text(app)
        assert "A community is a family of similar lessons that fire together." in text


async def test_numbers_agree_between_the_list_and_the_reflection_view(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    app = _app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CommunitiesScreen)
        clusters = screen.clusters
        numbers = [clusters.table.get_row_at(k)[0].plain for k in range(len(clusters.rows))]
        assert numbers == [str(k) for k in range(1, 13)] + ["·"]
        assert "12 communities (+5 unclustered)" in screen_text(app)
        await pilot.press("down", "down")  # community #3
        await settle(pilot)
        member = screen.member_list.members[0].id
        app.open_reflection(member)
        await settle(pilot)
        assert isinstance(app.screen, ReflectionScreen)
        assert "#3 of 12" in screen_text(app)
        app.open_reflection(info.adversarial_ids[0])  # alone in its community
        await settle(pilot)
        card_text = screen_text(app)
        assert "isolated: in none of the 12 communities" in card_text
        assert not re.search(r"#1[3-9]", card_text)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_forecast_shows_where_it_crosses_the_threshold(demo, size) -> None:  # type: ignore[no-untyped-def]
    """The R axis zooms to the curve and the threshold; the crossing day is printed."""
    root, _ = demo
    app = _app(root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.pause(0.4)  # past the plot's throttle
        screen = app.screen
        assert isinstance(screen, CommunitiesScreen)
        plot = screen.query_one(ForecastPlot)
        low, high = plot.y_range
        assert high == 1.0 and 0.0 < low < 0.7  # not the 0–1 axis
        text = screen_text(app)
        assert re.search(r"< 0\.70 on day \d+", text)
        if size == (120, 40):
            assert re.search(r"▽ day \d+", text) and plot.size.height >= 12


async def test_three_goes_to_the_clusters_from_a_reflection(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = _app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        communities = app.screen
        await pilot.press("tab", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ReflectionScreen)
        await pilot.press("3")
        await settle(pilot)
        assert app.screen is communities
        # From another screen too: the clusters, not the reflection left open.
        app.open_reflection(communities.member_list.members[0].id)
        await settle(pilot)
        assert isinstance(app.screen, ReflectionScreen)
        await pilot.press("1")
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        assert app.screen is communities


async def test_blast_radius_shows_titles_not_raw_references(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    rid = info.reflection_ids[0]
    app = _app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.open_reflection(rid)
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, InvalidateScreen) and modal.radius is not None
        marks = modal.query_one(MarkList)
        prompts = [str(marks.get_option_at_index(k).prompt) for k in range(marks.option_count)]
        assert prompts and any("⟦" in p for p in prompts)
        assert not any("[user:" in p for p in prompts)
        assert "[user:" not in screen_text(app)
        # The stored text stays exact.
        with Project.open(discover(root)) as p, p.agent.read() as conn:
            from brainview.store.community_reads import heads

            neighbour = modal.radius.neighbours[0]
            assert heads(conn, [neighbour.neuron_id], 100_000)[neighbour.neuron_id] == (
                neighbour.content
            )


async def test_an_invalidated_reflection_reads_as_the_legend_says(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    rid = info.reflection_ids[0]
    with Project.open(discover(root), write_agent=True) as p:
        lifecycle.invalidate(p, [rid], reason="planted", actor="alice", now=DEMO_NOW)
    app = _app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.open_reflection(rid)
        await settle(pilot)
        assert isinstance(app.screen, ReflectionScreen)
        card = app.screen.query_one(FsrsCard)
        assert card.detail is not None and card.detail.status is not None
        text = screen_text(app)
        assert "⊖ invalidated" in text and "⚠ retired" not in text
