"""Every era answers the same questions: counts, cards (stored, overlay, replayed), R."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
from fsrs import Card, Scheduler

from brainview.core import fsrs_math
from brainview.services.intake.refs import resolve
from brainview.services.metrics.stats import project_stats
from brainview.services.project import Project
from brainview.store.cards import card_of
from brainview.store.discovery import discover
from brainview.store.readmodel import counts, neuron, page_neurons, spikes_of, synapses_of
from tests.eras import to_09, to_pre07


def _rows(db, sql):  # type: ignore[no-untyped-def]
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_07_counts_agree_with_rows(project) -> None:  # type: ignore[no-untyped-def]
    db = project.paths.user_db
    data = project_stats(project)
    assert project.user.era.name == "0.7"
    u = data["user"]
    assert u["neurons"] == _rows(db, "SELECT COUNT(*) FROM neuron WHERE retired_at IS NULL")[0][0]
    assert (
        u["neurons_retired"]
        == _rows(db, "SELECT COUNT(*) FROM neuron WHERE retired_at IS NOT NULL")[0][0]
    )
    assert u["synapses"] == _rows(db, "SELECT COUNT(*) FROM synapse WHERE retired_at IS NULL")[0][0]
    doms = dict(
        _rows(db, "SELECT domain, COUNT(*) FROM neuron WHERE retired_at IS NULL GROUP BY 1")
    )
    assert u["domains"] == doms
    a = data["agent"]
    skills = dict(
        _rows(
            project.paths.agent_db,
            "SELECT domain, COUNT(*) FROM neuron WHERE type='reflection' "
            "AND retired_at IS NULL GROUP BY 1",
        )
    )
    assert a["reflections_per_skill"] == skills
    assert data["proposals"]["pending"] == 36
    assert data["proposals"]["stale"] == 3


def test_keyset_pages_cover_everything_once(project) -> None:  # type: ignore[no-untyped-def]
    seen: list[str] = []
    after = None
    with project.user.read() as conn:
        while True:
            page = page_neurons(conn, project.user.era, after=after, limit=37)
            if not page:
                break
            seen += [n.id for n in page]
            after = page[-1].id
        total = counts(conn, project.user.era).live
    assert len(seen) == total == len(set(seen))
    assert seen == sorted(seen)


def test_neuron_synapses_spikes(project, demo) -> None:  # type: ignore[no-untyped-def]
    _root, info = demo
    rid = info.reflection_ids[0]
    with project.agent.read() as conn:
        n = neuron(conn, project.agent.era, rid)
        syn = synapses_of(conn, project.agent.era, rid)
        spikes = spikes_of(conn, rid)
    assert n is not None and n.type == "reflection"
    raw = _rows(
        project.paths.agent_db,
        f"SELECT COUNT(*) FROM synapse WHERE (pre='{rid}' OR post='{rid}') AND retired_at IS NULL",
    )[0][0]
    assert len(syn) == raw
    assert [s.fired_at for s in spikes] == sorted(s.fired_at for s in spikes)


def test_cards_from_fsrs_state_match_rows(project, demo, now) -> None:  # type: ignore[no-untyped-def]
    _root, info = demo
    stored = dict(_rows(project.paths.agent_db, "SELECT neuron_id, card_json FROM fsrs_state"))
    with project.agent.read() as conn:
        for rid in info.reflection_ids[:30]:
            card = card_of(conn, project.agent.era, rid)
            assert card is not None and card.source == "fsrs_state"
            assert card.card_json == stored[rid]
            expected = Scheduler().get_card_retrievability(Card.from_json(stored[rid]), now)
            assert abs(card.retrievability(now) - expected) < 1e-9


def test_09_overlay_and_replay_agree_with_07(make_demo, now) -> None:  # type: ignore[no-untyped-def]
    root07, info = make_demo(name="v07")
    root_ov, _ = make_demo(name="v09o")
    root_rp, _ = make_demo(name="v09r")
    to_09(root_ov / ".spikuit" / "circuit.db", overlay=True)
    to_09(root_rp / ".spikuit" / "circuit.db", overlay=False)
    ids = info.user_ids[:40]
    with (
        Project.open(discover(root07)) as p07,
        Project.open(discover(root_ov)) as pov,
        Project.open(discover(root_rp)) as prp,
    ):
        assert pov.user.era.name == "0.9" and pov.user.era.card_source == "tutor"
        assert prp.user.era.name == "0.9" and prp.user.era.card_source == "replay"
        with p07.user.read() as c07, pov.user.read() as cov, prp.user.read() as crp:
            for nid in ids:
                a = card_of(c07, p07.user.era, nid)
                b = card_of(cov, pov.user.era, nid)
                c = card_of(crp, prp.user.era, nid)
                if a is None:
                    assert b is None and c is None
                    continue
                assert b is not None and b.card_json == a.card_json
                # The generator replays with fuzz off, so replay reproduces the card.
                assert c is not None and abs(c.stability - a.stability) < 1e-9
                assert abs(c.retrievability(now) - a.retrievability(now)) < 1e-9
        assert project_stats(pov)["user"]["neurons"] == project_stats(p07)["user"]["neurons"]


def test_pre07_brain_opens(make_demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = make_demo(name="old")
    db = root / ".spikuit" / "circuit.db"
    to_pre07(db)
    with Project.open(discover(root)) as p:
        assert p.user.era.name == "pre-0.7"
        assert not p.user.era.has_retire and not p.user.era.has_changelog
        data = project_stats(p)
    assert data["user"]["neurons"] == _rows(db, "SELECT COUNT(*) FROM neuron")[0][0]
    assert data["user"]["neurons_retired"] == 0


def test_user_refs_resolve_live_retired_dangling(project, demo) -> None:  # type: ignore[no-untyped-def]
    _root, info = demo
    live = info.user_ids[0] if info.user_ids[0] not in info.retired_user_ids else info.user_ids[1]
    retired = info.retired_user_ids[0]
    text = f"See [user:{live}] and [user:{retired}] but not [user:n-doesnotexist] [user:{live}]"
    refs = resolve(project, text)
    assert [(r.neuron_id, r.status) for r in refs] == [
        (live, "live"),
        (retired, "retired"),
        ("n-doesnotexist", "dangling"),
    ]
    assert refs[0].title


def test_vectorised_r_matches_pyfsrs_on_demo_cards(project, now) -> None:  # type: ignore[no-untyped-def]
    cards = [
        Card.from_json(j)
        for (j,) in _rows(project.paths.user_db, "SELECT card_json FROM fsrs_state")
    ]
    stab = np.array([c.stability for c in cards], dtype=float)
    last = np.array([c.last_review.timestamp() for c in cards])
    ours = fsrs_math.retrievability(stab, last, now)
    theirs = np.array([Scheduler().get_card_retrievability(c, now) for c in cards])
    assert np.max(np.abs(ours - theirs)) < 1e-9
    assert json.loads(cards[0].to_json())["stability"] == cards[0].stability
