"""The brains of one simulated run (``brainview simulate``): fresh files, like the demo.

The user brain is the demo generator's (:func:`~brainview.demo.generator.build_user_brain`)
plus the small domains the simulated user starts during the run, each written up front
with its creation stamp (the simulation shows a domain to the curator only from then
on).  The agent brain starts **empty** (``init-agent``'s schema): everything the curator
learns in a run, it learns from that run's decisions.  Written with the raw driver
before any connection exists, as the demo generator does; the facts the world needs are
read back in the same pass.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from brainview.core import fsrs_math
from brainview.demo import content
from brainview.demo.generator import DemoInfo, DemoSpec, build_user_brain, make_id, write_config
from brainview.store.spikuit_schema import SPIKUIT_07_DDL


@dataclass(frozen=True)
class FreshDomain:
    """A domain the user starts during the run: its name, when, and its notes' words."""

    name: str
    created_at: datetime
    words: tuple[str, ...]


@dataclass(frozen=True)
class UserNeuron:
    """What the world knows of one user neuron."""

    id: str
    title: str
    type: str
    domain: str
    created_at: datetime
    last_review: datetime | None


@dataclass
class SimBrains:
    """Where the project is and what its user brain holds."""

    root: Path
    neurons: list[UserNeuron] = field(default_factory=list)
    domain_born: dict[str, datetime] = field(default_factory=dict)
    """Each domain's creation: its first neuron's ``created_at``."""
    links: set[tuple[str, str]] = field(default_factory=set)
    """``(pre, post)`` of every live synapse, any type."""


def build(root: Path, spec: DemoSpec, fresh: list[FreshDomain]) -> SimBrains:
    """Write ``root/.spikuit`` (user brain + fresh domains, empty agent brain)."""
    spikuit = root / ".spikuit"
    write_config(spikuit, "simulation")
    user_db = spikuit / "circuit.db"
    build_user_brain(user_db, spec, DemoInfo(root=root))
    conn = sqlite3.connect(user_db)
    try:
        _add_fresh(conn, spec, fresh)
        conn.commit()
        out = SimBrains(root)
        _read_facts(conn, out)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    write_config(spikuit / "agent", "simulation-agent")
    agent = sqlite3.connect(spikuit / "agent" / "circuit.db")
    try:
        agent.execute("PRAGMA journal_mode=WAL")
        agent.executescript(SPIKUIT_07_DDL)
        agent.commit()
    finally:
        agent.close()
    return out


def _add_fresh(conn: sqlite3.Connection, spec: DemoSpec, fresh: list[FreshDomain]) -> None:
    rng = random.Random(spec.seed + 31)
    rows = []
    for d, dom in enumerate(fresh):
        for k, word in enumerate(dom.words):
            nid = make_id("nf", spec.seed, d * 100 + k)
            title = f"{word.capitalize()} — {rng.choice(content.ASPECTS)}"
            at = fsrs_math.format_ts(dom.created_at)
            body = f"# {title}\n\nFirst notes on {word}, new in {dom.name}."
            rows.append((nid, body, rng.choice(content.TYPES), dom.name, None, at, at))
    conn.executemany(
        "INSERT INTO neuron (id, content, type, domain, source, created_at, updated_at) "
        "VALUES (?,?,?,?,?,?,?)",
        rows,
    )


def _read_facts(conn: sqlite3.Connection, out: SimBrains) -> None:
    last = dict(conn.execute("SELECT neuron_id, MAX(fired_at) FROM spike GROUP BY neuron_id"))
    for nid, body, typ, dom, created in conn.execute(
        "SELECT id, content, type, domain, created_at FROM neuron "
        "WHERE retired_at IS NULL AND type != 'community_summary' ORDER BY id"
    ):
        title = str(body).split("\n", 1)[0].lstrip("# ").strip()
        born = fsrs_math.parse_ts(str(created))
        seen = fsrs_math.parse_ts(str(last[nid])) if last.get(nid) else None
        out.neurons.append(UserNeuron(str(nid), title, str(typ), str(dom), born, seen))
        if dom not in out.domain_born or born < out.domain_born[str(dom)]:
            out.domain_born[str(dom)] = born
    rows = conn.execute("SELECT pre, post FROM synapse WHERE retired_at IS NULL")
    out.links = {(str(a), str(b)) for a, b in rows}
