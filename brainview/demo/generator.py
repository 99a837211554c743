"""Deterministic Spikuit 0.7 projects: the demo, the tests and the benchmarks.

One generator, one size knob.  Brains are written with the raw driver (fresh files,
bulk inserts); proposals go through :mod:`brainview.services.intake` like any other.
"""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from brainview.core import fsrs_math
from brainview.demo import content
from brainview.store.spikuit_schema import SPIKUIT_07_DDL, write_config

DEMO_NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class DemoSpec:
    """How big and from which seed."""

    user_neurons: int = 300
    reflections: int = 150
    proposals: int = 36
    seed: int = 42
    now: datetime = DEMO_NOW
    history_days: int = 90
    adversarial: bool = True
    spiked_fraction: float = 0.7
    history: bool = False
    """Six weeks of past decisions and a consolidation (``brainview demo`` asks for it)."""


@dataclass
class DemoInfo:
    """What was written (ids the tests and the demo script want to find again)."""

    root: Path
    user_ids: list[str] = field(default_factory=list)
    reflection_ids: list[str] = field(default_factory=list)
    policy_ids: list[str] = field(default_factory=list)
    adversarial_ids: list[str] = field(default_factory=list)
    superseded_ids: list[str] = field(default_factory=list)
    """Retired reflections an outdated policy still summarises."""
    orphan_policy_id: str | None = None
    """A policy whose lessons are mostly retired (a consolidation proposes retiring it)."""
    themes: dict[str, list[str]] = field(default_factory=dict)
    retired_user_ids: list[str] = field(default_factory=list)
    proposal_ids: list[str] = field(default_factory=list)
    stale_proposal_ids: list[str] = field(default_factory=list)


def make_id(prefix: str, seed: int, i: int) -> str:
    """A stable, Spikuit-looking id."""
    digest = hashlib.blake2b(f"{prefix}{seed}:{i}".encode(), digest_size=6).hexdigest()
    return f"{prefix}-{digest}"


def _ts(dt: datetime) -> str:
    return fsrs_math.format_ts(dt)


def _connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        raise FileExistsError(f"{path} already exists")
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=OFF")
    conn.executescript(SPIKUIT_07_DDL)
    return conn


def _spike_history(
    rng: random.Random, profile: str, now: datetime, days: int
) -> list[tuple[int, datetime]]:
    """Grades over time for one neuron, by reliability profile."""
    n = {"reliable": 5, "mixed": 4, "failing": 4, "fading": 2, "new": 1}[profile]
    n = max(1, n + rng.randint(-1, 2))
    span = days if profile != "new" else 5
    start = now - timedelta(days=span)
    if profile == "fading":
        start = now - timedelta(days=days)
        span = days // 3
    times = sorted(start + timedelta(seconds=rng.uniform(0, span * 86400)) for _ in range(n))
    weights = {
        "reliable": [1, 1, 4, 8],
        "mixed": [3, 3, 4, 2],
        "failing": [8, 3, 1, 1],
        "fading": [1, 2, 5, 2],
        "new": [1, 1, 3, 2],
    }[profile]
    return [(rng.choices([1, 2, 3, 4], weights)[0], t) for t in times]


def _write_spikes(
    conn: sqlite3.Connection,
    nid: str,
    history: list[tuple[int, datetime]],
    card_id: int,
    session: str,
) -> None:
    conn.executemany(
        "INSERT INTO spike (neuron_id, grade, fired_at, session_id, notes) VALUES (?,?,?,?,?)",
        [(nid, g, _ts(t), session, None) for g, t in history],
    )
    card, _ = fsrs_math.replay_spikes(history, card_id=card_id)
    if card is not None:
        conn.execute(
            "INSERT INTO fsrs_state (neuron_id, card_json) VALUES (?, ?)", (nid, card.to_json())
        )


def _edges_rows(
    pre: str, post: str, typ: str, w: float, now: datetime, rng: random.Random
) -> Iterator[tuple[object, ...]]:
    ts = _ts(now - timedelta(days=rng.randint(1, 120)))
    yield (pre, post, typ, round(w, 4), 0, None, ts, ts)
    if typ in ("relates_to", "contrasts"):
        w2 = min(1.0, max(0.05, w + rng.uniform(-0.1, 0.1)))
        yield (post, pre, typ, round(w2, 4), 0, None, ts, ts)


SYN_SQL = (
    "INSERT OR IGNORE INTO synapse (pre, post, type, weight, co_fires, last_co_fire, "
    "created_at, updated_at) VALUES (?,?,?,?,?,?,?,?)"
)


def build_user_brain(path: Path, spec: DemoSpec, info: DemoInfo) -> None:
    """~``spec.user_neurons`` neurons in five domains, every synapse type, 90 days of spikes."""
    rng = random.Random(spec.seed)
    conn = _connect(path)
    domains = list(content.DOMAINS)
    n = spec.user_neurons
    by_domain: dict[str, list[str]] = {d: [] for d in domains}
    batch: list[tuple[object, ...]] = []
    for i in range(n):
        nid = make_id("n", spec.seed, i)
        dom = domains[i % len(domains)]
        title = content.title_for(rng, dom)
        created = spec.now - timedelta(days=rng.uniform(spec.history_days, 200))
        batch.append(
            (
                nid,
                content.body_for(rng, title, dom),
                rng.choice(content.TYPES),
                dom,
                None,
                _ts(created),
                _ts(created),
                i % (len(domains) * 3),
            )
        )
        by_domain[dom].append(nid)
        info.user_ids.append(nid)
        if len(batch) >= 20_000:
            _flush_neurons(conn, batch)
    _flush_neurons(conn, batch)
    edges: list[tuple[object, ...]] = []
    kinds = ["requires", "extends", "relates_to", "contrasts"]
    for dom, ids in by_domain.items():
        for j, nid in enumerate(ids):
            for _ in range(1 if rng.random() < 0.5 else 2):
                other = ids[(j + rng.randint(1, 12)) % len(ids)]
                if other != nid:
                    typ = rng.choice(kinds)
                    edges.extend(_edges_rows(nid, other, typ, rng.uniform(0.2, 0.9), spec.now, rng))
            if len(edges) >= 50_000:
                conn.executemany(SYN_SQL, edges)
                edges.clear()
        summary = make_id("n", spec.seed, n + domains.index(dom))
        conn.execute(
            "INSERT INTO neuron VALUES (?,?,?,?,?,?,?,?,NULL)",
            (
                summary,
                f"# {dom.capitalize()} — community summary\n\nAuto-generated.",
                "community_summary",
                dom,
                None,
                _ts(spec.now),
                _ts(spec.now),
                None,
            ),
        )
        for member in ids[:: max(1, len(ids) // 8)][:8]:
            edges.extend(_edges_rows(summary, member, "summarizes", 0.5, spec.now, rng))
    conn.executemany(SYN_SQL, edges)
    spiked = [nid for nid in info.user_ids if rng.random() < spec.spiked_fraction]
    profiles = ["reliable", "mixed", "fading", "failing", "new"]
    for k, nid in enumerate(spiked):
        history = _spike_history(rng, rng.choice(profiles), spec.now, spec.history_days)
        _write_spikes(conn, nid, history, card_id=k + 1, session=f"review-{k % 40}")
    retire_n = max(2, n // 60)
    retired = rng.sample(info.user_ids[10:], min(retire_n, max(0, n - 10)))
    conn.executemany(
        "UPDATE neuron SET retired_at = ? WHERE id = ?",
        [(_ts(spec.now - timedelta(days=3)), r) for r in retired],
    )
    info.retired_user_ids = retired
    _finish(conn)


def _finish(conn: sqlite3.Connection) -> None:
    """Commit and fold the WAL back into the file, as a long-lived brain would be."""
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _flush_neurons(conn: sqlite3.Connection, batch: list[tuple[object, ...]]) -> None:
    conn.executemany(
        "INSERT INTO neuron (id, content, type, domain, source, created_at, updated_at, "
        "community_id) VALUES (?,?,?,?,?,?,?,?)",
        batch,
    )
    batch.clear()


def build_project(root: Path, spec: DemoSpec = DemoSpec()) -> DemoInfo:
    """Write a whole demo project under ``root`` (which must not hold one yet)."""
    from brainview.demo.agent_gen import build_agent_brain, queue_demo_proposals

    info = DemoInfo(root=root)
    spikuit = root / ".spikuit"
    write_config(spikuit, "demo")
    build_user_brain(spikuit / "circuit.db", spec, info)
    write_config(spikuit / "agent", "demo-agent")
    build_agent_brain(spikuit / "agent" / "circuit.db", spec, info)
    if spec.proposals:
        queue_demo_proposals(root, spec, info)
    if spec.history:
        from brainview.demo.history import seed_history

        seed_history(root, spec, info)
    return info


def dump_json(info: DemoInfo) -> str:
    """The ids of a demo project, for scripts."""
    return json.dumps({k: (str(v) if isinstance(v, Path) else v) for k, v in vars(info).items()})
