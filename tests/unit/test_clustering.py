"""Community detection: planted partitions recovered, determinism, policies, the cache."""

from __future__ import annotations

import sqlite3
import threading

import igraph
import numpy as np
import pytest

from brainview.core import clustering
from brainview.demo.generator import DEMO_NOW, DemoSpec
from brainview.services import communities as svc
from brainview.services.communities import cache as community_cache
from brainview.services.communities.runner import (
    ClusteringCancelled,
    ClusteringJob,
    compute,
    graph_fingerprint,
)
from brainview.services.project import Project
from brainview.store.discovery import discover


def planted(
    sizes: list[int], p_in: float, p_out: float, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A weighted stochastic block model: (truth, pre, post, weight), both directions."""
    rng = np.random.default_rng(seed)
    truth = np.repeat(np.arange(len(sizes)), sizes)
    n = truth.size
    i, j = np.triu_indices(n, k=1)
    same = truth[i] == truth[j]
    keep = rng.random(i.size) < np.where(same, p_in, p_out)
    i, j = i[keep], j[keep]
    w = np.where(
        truth[i] == truth[j], rng.uniform(0.4, 1.0, i.size), rng.uniform(0.05, 0.5, i.size)
    )
    # Stored like relates_to: two rows, each at half weight (as read_graph does).
    return truth, np.concatenate([i, j]), np.concatenate([j, i]), np.concatenate([w, w]) / 2


@pytest.mark.parametrize(
    ("sizes", "p_in", "p_out", "seed"),
    [
        ([40] * 10, 0.3, 0.01, 1),
        ([15, 30, 60, 120, 25], 0.25, 0.005, 2),
        ([50] * 20, 0.2, 0.004, 3),
        ([8] * 40, 0.7, 0.01, 4),
    ],
)
def test_planted_partitions_are_recovered(sizes, p_in, p_out, seed, record_property) -> None:  # type: ignore[no-untyped-def]
    truth, pre, post, w = planted(sizes, p_in, p_out, seed)
    edges = clustering.collapse_edges(pre, post, w)
    membership, quality = clustering.detect(truth.size, edges)
    score = clustering.nmi(truth, membership)
    record_property("nmi", round(score, 4))
    print(f"planted {len(sizes)} blocks, n={truth.size}: NMI={score:.4f} Q={quality:.3f}")
    assert score >= 0.9
    # Our NMI agrees with igraph's.
    assert score == pytest.approx(
        igraph.compare_communities(truth.tolist(), membership.tolist(), method="nmi"), abs=1e-9
    )


def test_detection_is_deterministic_and_order_independent() -> None:
    truth, pre, post, w = planted([30] * 8, 0.3, 0.02, 9)
    first, q1 = clustering.detect(truth.size, clustering.collapse_edges(pre, post, w))
    order = np.random.default_rng(5).permutation(pre.size)
    again, q2 = clustering.detect(
        truth.size, clustering.collapse_edges(pre[order], post[order], w[order])
    )
    assert np.array_equal(first, again) and q1 == q2


def test_canonical_numbering_biggest_first_then_smallest_member() -> None:
    assert clustering.canonical(np.array([7, 7, 3, 5, 5, 5, 9])).tolist() == [1, 1, 2, 0, 0, 0, 3]


def test_collapse_drops_non_nodes_and_self_loops_and_sums_pairs() -> None:
    e = clustering.collapse_edges(
        np.array([0, 1, 2, 3, -1, 1]),
        np.array([1, 0, 2, 1, 0, 3]),
        np.array([0.3, 0.5, 1, 0.2, 1, -4]),
    )
    assert list(zip(e.a.tolist(), e.b.tolist(), strict=True)) == [(0, 1), (1, 3)]
    assert e.w.tolist() == pytest.approx([0.8, 0.2])


def test_isolated_nodes_are_singletons() -> None:
    e = clustering.collapse_edges(np.array([0, 1, 0]), np.array([1, 2, 2]), np.ones(3))
    membership, _ = clustering.detect(5, e)
    assert membership.tolist() == [0, 0, 0, 1, 2]
    empty, _ = clustering.detect(
        3, clustering.collapse_edges(np.zeros(0), np.zeros(0), np.zeros(0))
    )
    assert empty.tolist() == [0, 1, 2]


def test_policy_joins_the_community_most_members_fall_in() -> None:
    membership = np.array([0, 0, 1, 1, 1, 2])
    got = clustering.attach_policies({"p-b": [2, 3, 0], "p-a": [0, 2], "p-none": [9]}, membership)
    assert got == {"p-a": 0, "p-b": 1}


def test_distinctive_terms_ignore_references_and_stopwords() -> None:
    docs = [
        "Proposed merging [user:n-abc] and [user:n-def]: keywords overlap but purposes differ",
        "Merging [user:n-xyz] again: keywords overlap, the purposes differ",
        "Steps in [user:n-1] must stay before [user:n-2]",
        "Raising the weight between [user:n-3] and [user:n-4] was rejected",
    ]
    terms = [clustering.terms(d) for d in docs]
    assert "user" not in terms[0] and "n-abc" not in terms[0] and "and" not in terms[0]
    df, n = clustering.document_frequency(terms)
    label = clustering.distinctive_terms(terms[:2], df, n)
    # Words both members share and the other documents lack.
    assert set(label) <= {"keywords", "overlap", "purposes", "differ", "merging"}
    assert len(label) == 3


# -- on real (demo) brains --------------------------------------------------------------


def test_demo_themes_recovered_and_policies_attached(project, demo) -> None:  # type: ignore[no-untyped-def]
    _root, info = demo
    part = compute(project.agent, now_iso="2026-11-30T09:00:00+00:00")
    where = dict(zip(part.ids, part.membership.tolist(), strict=True))
    truth = {rid: k for k, ids in enumerate(info.themes.values()) for rid in ids}
    ids = sorted(truth)
    score = clustering.nmi([truth[i] for i in ids], [where[i] for i in ids])
    print(f"demo themes: NMI={score:.4f}")
    assert score >= 0.9
    # Summarizes links are not in the graph, so a policy does not glue its themes
    # together; each policy lands on the community of the theme it summarises.
    for pid, theme in zip(
        info.policy_ids, ("keyword overlap", "prerequisite direction"), strict=True
    ):
        members = {where[r] for r in info.themes[theme]}
        assert part.policies[pid] in members
    # Adversarial reflections have no links: singletons.
    sizes = part.sizes()
    assert all(sizes[where[r]] == 1 for r in info.adversarial_ids)


def test_pipeline_is_deterministic_across_processes(project) -> None:  # type: ignore[no-untyped-def]
    here = compute(project.agent, now_iso="x")
    child = ClusteringJob(project.agent.path, now_iso="x", in_process=False).run()
    assert child.fingerprint == here.fingerprint and child.ids == here.ids
    assert np.array_equal(child.membership, here.membership)
    assert child.policies == here.policies


def _agent_sql(root, sql: str, params=()) -> None:  # type: ignore[no-untyped-def]
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    conn.execute(sql, params)
    conn.commit()
    conn.close()


def test_cache_is_used_until_the_graph_changes(demo, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    with Project.open(discover(root)) as p:
        first = svc.ensure_partition(p, now=DEMO_NOW)
        community_cache.forget()  # the next process: only the cache file
        cached, fresh = svc.load_partition(p)
        assert fresh and cached is not None and cached.fingerprint == first.fingerprint
        assert np.array_equal(cached.membership, first.membership)
        assert cached.policies == first.policies and cached.ids == first.ids

        def boom(self):  # type: ignore[no-untyped-def]
            raise AssertionError("recomputed although the graph did not change")

        monkeypatch.setattr(ClusteringJob, "run", boom)
        assert svc.ensure_partition(p, now=DEMO_NOW).fingerprint == first.fingerprint
        monkeypatch.undo()

    changes = [
        ("UPDATE synapse SET weight = weight + 0.01 WHERE rowid = 1", ()),
        (
            "UPDATE neuron SET retired_at = '2026-11-30T08:00:00+00:00' WHERE id = ?",
            (info.reflection_ids[3],),
        ),
        (
            "INSERT INTO synapse (pre, post, type, weight, created_at, updated_at) "
            "VALUES (?, ?, 'relates_to', 0.9, 'x', 'x')",
            (info.reflection_ids[0], info.reflection_ids[1]),
        ),
    ]
    seen = {first.fingerprint}
    for sql, params in changes:
        _agent_sql(root, sql, params)
        with Project.open(discover(root)) as p:
            assert svc.load_partition(p)[1] is False
            part = svc.ensure_partition(p, now=DEMO_NOW)
            assert part.fingerprint not in seen
            seen.add(part.fingerprint)
            with p.agent.read() as conn:
                assert graph_fingerprint(conn, p.agent.era) == part.fingerprint
            cached, fresh = community_cache.lookup(p.agent.path, part.fingerprint)
            assert fresh and cached is not None and cached.fingerprint == part.fingerprint
    assert info.reflection_ids[3] not in part.ids


def test_spikuit_community_id_is_never_written(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    _agent_sql(root, "UPDATE neuron SET community_id = 7 WHERE id = ?", (info.reflection_ids[0],))
    with Project.open(discover(root)) as p:
        svc.ensure_partition(p, now=DEMO_NOW)
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    values = dict(conn.execute("SELECT id, community_id FROM neuron WHERE type = 'reflection'"))
    conn.close()
    assert values[info.reflection_ids[0]] == 7
    assert {v for k, v in values.items() if k != info.reflection_ids[0]} == {None}


def test_cancel_kills_the_child(project) -> None:  # type: ignore[no-untyped-def]
    stages: list[str] = []
    job = ClusteringJob(project.agent.path, now_iso="x", in_process=False)

    def on_progress(stage: str, _fraction: float) -> None:
        stages.append(stage)
        job.cancel()  # from the first progress line on

    job.progress = on_progress
    with pytest.raises(ClusteringCancelled):
        job.run()
    assert stages and job._proc is not None and job._proc.poll() is not None
    # Cancel before start: never spawns.
    early = ClusteringJob(project.agent.path, now_iso="x", in_process=False)
    early.cancel()
    with pytest.raises(ClusteringCancelled):
        early.run()
    assert early._proc is None


def test_child_runs_off_the_calling_thread(project) -> None:  # type: ignore[no-untyped-def]
    """While a child clusters, this process's threads keep running (no GIL held)."""
    ticks = 0
    done = threading.Event()

    def ticker() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            done.wait(0.005)

    t = threading.Thread(target=ticker)
    t.start()
    try:
        ClusteringJob(project.agent.path, now_iso="x", in_process=False).run()
    finally:
        done.set()
        t.join()
    assert ticks > 5


def test_no_brainview_tables_yet_means_zero_grades(make_demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = make_demo(DemoSpec(proposals=0), "fresh")
    with Project.open(discover(root)) as p:
        part = compute(p.agent, now_iso="x")
        data = svc.load_data(p, part, True, DEMO_NOW)
        rows, total = svc.community_rows(p, data, threshold=0.7)
    assert total == 13 and rows[0].size == 13
    assert sum(r.strong + r.miss for r in rows) == 0


def test_child_ignores_stray_output_and_reports_failures(project, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import sys

    from brainview.errors import BrainviewError

    wrapper = (
        "import runpy, sys\n"
        "print('a library warning on stdout', flush=True)\n"
        "sys.argv = ['cluster', *sys.argv[1:]]\n"
        "runpy.run_module('brainview.services.communities.runner', run_name='__main__')\n"
    )
    monkeypatch.setattr(
        ClusteringJob,
        "child_command",
        lambda self: [sys.executable, "-c", wrapper, str(self.agent_db), "--now", self.now_iso],
    )
    part = ClusteringJob(project.agent.path, now_iso="x", in_process=False).run()
    assert part.ids == compute(project.agent, now_iso="x").ids
    monkeypatch.undo()
    job = ClusteringJob(project.agent.path, now_iso="x", in_process=False)
    job.agent_db = tmp_path / "missing.db"  # vanished between the size check and the run
    with pytest.raises(BrainviewError, match="clustering failed"):
        job._run_child()
