"""Build a REAL Spikuit 0.7.1 project with spikuit's own Python API.

Used by compat tests to check brainview against brains written by the real
engine (not hand-rolled SQL).  Everything goes through ``spikuit_core``:
``init_brain`` writes ``.spikuit/config.toml`` exactly like ``spkt init``
(minus git), and ``Circuit`` (no embedder) creates ``circuit.db`` and performs
every mutation (add / link / fire / update / set weight / retire / merge /
community detection), so changeset + event rows, soft-retire columns,
``neuron_predecessor`` rows, ``fsrs_state`` JSON and STDP-adjusted weights
are all spikuit's own.

Layout produced::

    root/.spikuit/config.toml          (spikuit_core.config.init_brain)
    root/.spikuit/cache/
    root/.spikuit/circuit.db           user brain
    root/.spikuit/agent/config.toml    agent ("sibling") brain, when with_agent
    root/.spikuit/agent/cache/
    root/.spikuit/agent/circuit.db

Determinism: neuron ids (``n-<12 hex>``, the same shape ``Neuron.create``
generates), contents, topology, initial weights, spike grades/offsets and
FSRS fuzz (global ``random`` is seeded and restored) all derive from
``seed``.  Timestamps chosen by the builder (neuron created_at, spike
fired_at) are offsets from ``anchor`` (default: today 00:00 UTC).  Timestamps
spikuit stamps itself (synapse created_at/updated_at, retired_at, changeset /
event ``at``, predecessor ``at``, fsrs ``card_id``, and the ``due`` of
never-reviewed cards, which is the wall-clock time of ``add_neuron``) and the
uuid-based changeset/event ids are NOT deterministic; reviewed cards are.
STDP weights only depend on spike time differences, so ``_graph_state_hash`` (the consolidate plan's
``state_hash``) is identical across builds with the same arguments.

Requires ``spikuit-core[engine]==0.7.1``.  ``n_neurons=40`` builds both brains
in well under a second on tmpfs (see ``result["build_seconds"]``).
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

__all__ = [
    "AGENT_DOMAINS",
    "HOSTILE_SNIPPETS",
    "USER_DOMAINS",
    "abuild_spikuit_project",
    "build_spikuit_project",
]

USER_DOMAINS = ("math", "french", "history")
USER_TYPES = ("concept", "fact", "procedure")
AGENT_DOMAINS = ("curator", "tutor", "qabot")

# Raw hostile payloads (also exported so tests can search for them).
HOSTILE_SNIPPETS: dict[str, str] = {
    "click_markup": "[@click=app.quit]Quit now[/]",
    "link_markup": "[link=http://x]x[/link]",
    "ansi_csi": "\x1b[31mred\x1b[0m\x1b[2J\x1b[H",
    "osc52": "\x1b]52;c;cm0gLXJmIH4=\x07",
    "osc8": "\x1b]8;;http://evil.example\x1b\\hyperlink\x1b]8;;\x1b\\",
    "c1_csi": "\x9b31mC1-CSI\x9b0m",
    "bidi": "abc\u202edcba\u202c \u2066isolate\u2069",
}
LONG_NOTE_CHARS = 30_000


def _utc_today() -> datetime:
    now = datetime.now(UTC)
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


class _Ids:
    """Deterministic spikuit-shaped ids (``n-`` + 12 hex, like Neuron.create)."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._seen: set[str] = set()

    def new(self, prefix: str = "n-") -> str:
        while True:
            nid = f"{prefix}{self._rng.getrandbits(48):012x}"
            if nid not in self._seen:
                self._seen.add(nid)
                return nid


# ---------------------------------------------------------------------------
# public entry point
# ---------------------------------------------------------------------------


def build_spikuit_project(
    root: Path,
    *,
    n_neurons: int = 40,
    with_agent: bool = True,
    hostile: bool = False,
    seed: int = 7,
    anchor: datetime | None = None,
) -> dict[str, Any]:
    """Create a Spikuit 0.7.1 project under ``root`` and describe it.

    Synchronous (uses ``asyncio.run``); inside a running event loop use
    :func:`abuild_spikuit_project` instead.

    Args:
        root: project directory (created if missing; must not contain
            ``.spikuit/`` yet).  Its name becomes ``[brain] name``.
        n_neurons: number of regular user neurons (>= 20).  Hostile neurons
            are extra.
        with_agent: also build ``root/.spikuit/agent/`` (reflection brain).
        hostile: add 6 user neurons (+1 agent reflection) whose content carries
            Rich markup, ANSI/OSC/C1 escapes, bidi overrides, a 30,000-char note.
        seed: drives ids, contents, topology, weights, spikes, FSRS fuzz.
        anchor: reference "now" for created_at / fired_at offsets
            (default: today 00:00 UTC).  Must be timezone-aware.

    Returns::

        {
          "root", "seed", "anchor", "spikuit_version", "build_seconds",
          "user": {
            "db_path", "config_path", "spikuit_dir", "brain_name",
            "ids": {
              "all", "regular",              # creation order (regular + hostile)
              "retired",                     # [retired_with_spikes, retired_ref]
              "retired_all",                 # + merge source (3 retired rows)
              "merge": {"source", "into", "result"},   # result = merge_neurons() dict
              "retired_with_spikes", "retired_ref", "updated", "frontmatter",
              "no_domain", "removable_leaf", "hub_summarizes",
              "stdp_pair",                   # (earlier, later) co-fired relates_to pair
              "multi_type_pair",             # (pre, post) with 2 live synapse types
              "with_spikes", "spike_counts", "spike_grades",
              "weight_set", "removed_synapses", "hostile": {key: id}, "domain_of",
            },
            "counts": {...},   # straight from SQLite, see _describe_brain
            "stats": {...},    # Circuit.stats() of a fresh Circuit == `spkt stats --json`
          },
          "agent": None | {
            "db_path", "config_path", "spikuit_dir", "brain_name",
            "ids": {"all", "refs": {agent_id: [user ids]}, "dangling_ref",
                    "retired_ref", "merged_ref", "with_spikes", "spike_counts",
                    "domain_of"},
            "counts": {...}, "stats": {...},
          },
        }
    """
    t0 = time.perf_counter()
    result = asyncio.run(
        abuild_spikuit_project(
            root,
            n_neurons=n_neurons,
            with_agent=with_agent,
            hostile=hostile,
            seed=seed,
            anchor=anchor,
        )
    )
    result["build_seconds"] = round(time.perf_counter() - t0, 3)
    return result


async def abuild_spikuit_project(
    root: Path,
    *,
    n_neurons: int = 40,
    with_agent: bool = True,
    hostile: bool = False,
    seed: int = 7,
    anchor: datetime | None = None,
) -> dict[str, Any]:
    """Async twin of :func:`build_spikuit_project` (same arguments / result)."""
    if n_neurons < 20:
        raise ValueError("n_neurons must be >= 20 (roles need distinct neurons)")
    root = Path(root)
    anchor = anchor or _utc_today()
    if anchor.tzinfo is None:
        raise ValueError("anchor must be timezone-aware")

    t0 = time.perf_counter()
    saved_state = random.getstate()
    random.seed(seed)  # fsrs fuzzing uses the global `random.random`
    try:
        result = await _build(
            root,
            n_neurons=n_neurons,
            with_agent=with_agent,
            hostile=hostile,
            seed=seed,
            anchor=anchor,
        )
    finally:
        random.setstate(saved_state)
    result["build_seconds"] = round(time.perf_counter() - t0, 3)
    return result


# ---------------------------------------------------------------------------
# implementation
# ---------------------------------------------------------------------------


async def _build(
    root: Path,
    *,
    n_neurons: int,
    with_agent: bool,
    hostile: bool,
    seed: int,
    anchor: datetime,
) -> dict[str, Any]:
    from spikuit_core.config import init_brain

    root.mkdir(parents=True, exist_ok=True)
    config = init_brain(root, name=root.name or "brain")  # == `spkt init --no-git`

    rng = random.Random(seed)
    ids = _Ids(rng)

    user = await _build_user_brain(
        config.db_path,
        rng=rng,
        ids=ids,
        n=n_neurons,
        hostile=hostile,
        anchor=anchor,
    )
    user["config_path"] = config.config_path
    user["spikuit_dir"] = config.spikuit_dir
    user["brain_name"] = config.name

    agent = None
    if with_agent:
        agent_dir = config.spikuit_dir / "agent"
        agent_name = f"{config.name}-agent"
        _write_agent_config(agent_dir, agent_name)
        agent = await _build_agent_brain(
            agent_dir / "circuit.db",
            rng=rng,
            ids=ids,
            user=user,
            hostile=hostile,
            anchor=anchor,
        )
        agent["config_path"] = agent_dir / "config.toml"
        agent["spikuit_dir"] = agent_dir
        agent["brain_name"] = agent_name

    return {
        "root": root,
        "seed": seed,
        "anchor": anchor,
        "spikuit_version": _spikuit_version(),
        "user": user,
        "agent": agent,
    }


def _spikuit_version() -> str:
    from importlib.metadata import version

    # spikuit_core.__version__ says "0.6.3" even in the 0.7.1 wheel; use dist metadata.
    return version("spikuit-core")


def _write_agent_config(agent_dir: Path, name: str) -> None:
    """Agent brain dir mirrors a `.spikuit/` dir: config.toml + cache/ + circuit.db.

    spikuit 0.7.1 has no agent-brain code; init_brain(path) would create
    ``path/.spikuit/``, so the same DEFAULT_CONFIG template is written directly.
    """
    from spikuit_core.config import CACHE_DIR, CONFIG_FILE, DEFAULT_CONFIG

    agent_dir.mkdir(parents=True, exist_ok=False)
    (agent_dir / CACHE_DIR).mkdir()
    (agent_dir / CONFIG_FILE).write_text(DEFAULT_CONFIG.format(name=name))


# -- user brain -------------------------------------------------------------


def _user_content(i: int, domain: str | None, rng: random.Random) -> str:
    topics = {
        "math": [
            "Functor",
            "Monoid",
            "Eigenvalue",
            "Group",
            "Limit",
            "Integral",
            "Matrix",
            "Prime",
            "Vector space",
            "Derivative",
            "Topology",
            "Ring",
        ],
        "french": [
            "Subjonctif",
            "Passé composé",
            "Imparfait",
            "Liaison",
            "Gender",
            "Partitive",
            "Conditionnel",
            "Pronoms",
            "Accord",
            "Négation",
        ],
        "history": [
            "Magna Carta",
            "Meiji Restoration",
            "French Revolution",
            "Silk Road",
            "Renaissance",
            "Cold War",
            "Printing press",
            "Industrial Revolution",
            "Hanseatic League",
        ],
        None: ["Misc note", "Inbox item", "Loose idea"],
    }
    pool = topics[domain]
    title = f"{pool[i % len(pool)]} #{i}"
    words = [
        "graph",
        "recall",
        "memory",
        "spike",
        "review",
        "example",
        "rule",
        "exception",
        "definition",
        "proof",
        "context",
        "usage",
    ]
    body = " ".join(rng.choice(words) for _ in range(12 + (i % 5) * 4))
    return f"# {title}\n\n{body.capitalize()}."


async def _build_user_brain(
    db_path: Path,
    *,
    rng: random.Random,
    ids: _Ids,
    n: int,
    hostile: bool,
    anchor: datetime,
) -> dict[str, Any]:
    from spikuit_core import (
        Circuit,
        Grade,
        Neuron,
        Source,
        Spike,
        SynapseConfidence,
        SynapseType,
    )

    circuit = Circuit(db_path=db_path)  # embedder=None
    await circuit.connect()
    try:
        # -- neurons -----------------------------------------------------
        U: list[str] = []
        domain_of: dict[str, str | None] = {}
        for i in range(n):
            domain = USER_DOMAINS[i % 3] if i != n - 1 else None
            ntype = USER_TYPES[(i // 3) % 3]
            content = _user_content(i, domain, rng)
            if i == 4:
                # ingest-style frontmatter; Neuron.create parses type/domain out of it
                content = (
                    f"---\ntype: {ntype}\ndomain: {domain}\nsource: https://example.org/{i}\n---\n"
                    + content
                )
            nid = ids.new()
            created = anchor - timedelta(days=60 - i, hours=i % 7)
            neuron = Neuron.create(content, id=nid, type=ntype, domain=domain)
            neuron.created_at = neuron.updated_at = created
            await circuit.add_neuron(neuron)
            U.append(nid)
            domain_of[nid] = domain

        # roles (fixed positions)
        merge_into, merge_source = U[10], U[11]
        retired_with_spikes = U[13]
        retired_ref = U[14]  # referenced by an agent reflection, then retired
        updated = U[7]
        frontmatter = U[4]
        no_domain = U[n - 1]

        # -- synapses ----------------------------------------------------
        planned: list[tuple[str, str, SynapseType, float, SynapseConfidence, float]] = []
        used: set[tuple[str, str]] = set()

        def plan(
            a: int,
            b: int,
            st: SynapseType,
            *,
            w: float | None = None,
            conf: SynapseConfidence = SynapseConfidence.EXTRACTED,
            score: float = 1.0,
            allow_dup: bool = False,
        ) -> bool:
            pre, post = U[a], U[b]
            keys = [(pre, post)] + ([(post, pre)] if st.is_bidirectional else [])
            if not allow_dup and any(k in used for k in keys):
                return False
            used.update(keys)
            weight = w if w is not None else round(rng.uniform(0.15, 0.9), 3)
            planned.append((pre, post, st, weight, conf, score))
            return True

        for i in range(3, n):  # requires chain inside a domain
            if i % 4 != 0 and i != n - 1:
                plan(i, i - 3, SynapseType.REQUIRES)
        for i in range(1, n - 1, 5):  # extends (cross-domain)
            plan(i, i - 1, SynapseType.EXTENDS)
        for i in range(0, n - 6, 7):  # contrasts (bidirectional)
            plan(i, i + 6, SynapseType.CONTRASTS)
        for i in range(0, n - 2, 4):  # relates_to (bidirectional)
            plan(
                i,
                i + 2,
                SynapseType.RELATES_TO,
                conf=SynapseConfidence.INFERRED if i % 8 == 0 else SynapseConfidence.EXTRACTED,
                score=0.72 if i % 8 == 0 else 1.0,
            )
        for j in (3, 6, 9, 12):  # summarizes (directed, hub U[0])
            plan(0, j, SynapseType.SUMMARIZES)
        # weak edges -> `remove_synapse` items in a consolidate plan (0.8*w < 0.05)
        plan(15, 8, SynapseType.RELATES_TO, w=0.055, conf=SynapseConfidence.AMBIGUOUS, score=0.4)
        plan(16, 2, SynapseType.EXTENDS, w=0.06)
        # never-fired leaf whose only edge is prunable -> `remove_neuron` plan item
        plan(n - 1, 1, SynapseType.EXTENDS, w=0.05)
        # merge fixtures: source U[11] linked to U[1], U[5]; target U[10] to U[5]
        plan(11, 1, SynapseType.EXTENDS)
        plan(5, 11, SynapseType.EXTENDS)
        # deliberate 2nd type on an existing ordered pair (U[5] requires U[2]):
        # two synapse rows, but ONE networkx edge (stats/graph collapse it).
        multi_type_pair = (U[5], U[2])
        assert (U[5], U[2]) in used
        plan(5, 2, SynapseType.EXTENDS, allow_dup=True)

        ingest_n = len(planned) // 2
        async with circuit.transaction(
            tag="ingest:builder", actor_id="builder-agent", actor_kind="agent"
        ):
            for pre, post, st, w, conf, score in planned[:ingest_n]:
                await circuit.add_synapse(
                    pre, post, st, weight=w, confidence=conf, confidence_score=score
                )
        for pre, post, st, w, conf, score in planned[ingest_n:]:  # implicit system txs
            await circuit.add_synapse(
                pre, post, st, weight=w, confidence=conf, confidence_score=score
            )

        # an aborted (empty) changeset: status='aborted', no events
        try:
            async with circuit.transaction(
                tag="manual:aborted", actor_id="builder", actor_kind="human"
            ):
                raise _Abort()
        except _Abort:
            pass

        # -- hostile neurons ---------------------------------------------
        hostile_ids: dict[str, str] = {}
        if hostile:
            hostile_ids = await _add_hostile_neurons(circuit, ids, U, anchor)

        # -- spikes (chronological so STDP sees neighbours' last fires) ---
        studied = [U[i] for i in range(n - 1) if i % 2 == 0 or i in (11, 13, 15)]
        if hostile:
            studied.append(hostile_ids["click_markup"])
        grades = [Grade.MISS, Grade.WEAK, Grade.FIRE, Grade.FIRE, Grade.STRONG]
        spike_plan: list[tuple[datetime, str, Grade, str | None, str | None]] = []
        for k in range(3 * len(studied) // 2 + 10):
            nid = studied[k % len(studied)] if k < len(studied) else rng.choice(studied)
            fired_at = anchor - timedelta(
                days=rng.randint(1, 40), hours=rng.randint(0, 23), minutes=rng.randint(0, 59)
            )
            grade = grades[rng.randrange(len(grades))]
            session = f"sess-{fired_at:%Y%m%d}" if k % 3 else None
            notes = "confused with a neighbour" if k % 11 == 5 else None
            if hostile and nid == hostile_ids.get("click_markup"):
                notes = HOSTILE_SNIPPETS["click_markup"] + HOSTILE_SNIPPETS["osc52"]
            spike_plan.append((fired_at, nid, grade, session, notes))
        # guaranteed STDP: U[2] then U[0] (relates_to pair) one day apart
        spike_plan.append((anchor - timedelta(hours=30), U[2], Grade.FIRE, "sess-stdp", None))
        spike_plan.append((anchor - timedelta(hours=6), U[0], Grade.STRONG, "sess-stdp", None))
        spike_plan.sort(key=lambda s: s[0])
        spikes_by: dict[str, int] = {}
        grades_by: dict[str, list[int]] = {}
        for fired_at, nid, grade, session, notes in spike_plan:
            await circuit.fire(
                Spike(
                    neuron_id=nid, grade=grade, fired_at=fired_at, session_id=session, notes=notes
                )
            )
            spikes_by[nid] = spikes_by.get(nid, 0) + 1
            grades_by.setdefault(nid, []).append(int(grade))

        # -- lifecycle ops -----------------------------------------------
        n_upd = await circuit.get_neuron(updated)
        assert n_upd is not None
        n_upd.content += "\n\nEdited after review."
        await circuit.update_neuron(n_upd)  # neuron.update

        weight_set = planned[0]
        async with circuit.transaction(
            tag="manual:weight", actor_id="cli-user", actor_kind="human"
        ):
            await circuit.set_synapse_weight(
                weight_set[0], weight_set[1], weight_set[2], 0.95
            )  # synapse.update

        removed_directed = next(
            p
            for p in planned
            if p[2] is SynapseType.EXTENDS
            and p[0] not in (merge_source, merge_into)
            and p[1] not in (merge_source, merge_into)
        )
        await circuit.remove_synapse(
            removed_directed[0], removed_directed[1], removed_directed[2]
        )  # 1 synapse.retire
        removed_bidir = next(p for p in planned if p[2] is SynapseType.CONTRASTS)
        await circuit.remove_synapse(
            removed_bidir[0], removed_bidir[1], removed_bidir[2]
        )  # 2 synapse.retire

        src = Source(url="https://example.org/merge-source", title="Merge source ref")
        await circuit.add_source(src)
        await circuit.attach_source(merge_source, src.id)
        merge_result = await circuit.merge_neurons([merge_source], merge_into)

        await circuit.remove_neuron(retired_with_spikes)
        await circuit.remove_neuron(retired_ref)

        communities = await circuit.detect_communities()
    finally:
        await circuit.close()

    ids_info: dict[str, Any] = {
        "all": list(U) + list(hostile_ids.values()),
        "regular": list(U),
        "retired": [retired_with_spikes, retired_ref],
        "retired_all": [merge_source, retired_with_spikes, retired_ref],
        "merge": {"source": merge_source, "into": merge_into, "result": merge_result},
        "retired_with_spikes": retired_with_spikes,
        "retired_ref": retired_ref,
        "updated": updated,
        "frontmatter": frontmatter,
        "no_domain": no_domain,
        "removable_leaf": no_domain,  # never fired; single edge w=0.05
        "hub_summarizes": U[0],
        "stdp_pair": (U[2], U[0]),
        "multi_type_pair": multi_type_pair,
        "with_spikes": sorted(spikes_by),
        "spike_counts": dict(sorted(spikes_by.items())),
        "spike_grades": grades_by,
        "weight_set": {
            "pre": weight_set[0],
            "post": weight_set[1],
            "type": weight_set[2].value,
            "weight": 0.95,
        },
        "removed_synapses": [
            {
                "pre": removed_directed[0],
                "post": removed_directed[1],
                "type": removed_directed[2].value,
            },
            {"pre": removed_bidir[0], "post": removed_bidir[1], "type": removed_bidir[2].value},
        ],
        "hostile": hostile_ids,
        "domain_of": {**domain_of},
    }
    desc = await _describe_brain(db_path)
    _check_user_invariants(
        desc, ids_info, n=n, n_hostile=len(hostile_ids), n_communities=len(communities)
    )
    return {"db_path": db_path, "ids": ids_info, **desc}


class _Abort(Exception):
    pass


async def _add_hostile_neurons(
    circuit: Any, ids: _Ids, U: list[str], anchor: datetime
) -> dict[str, str]:
    from spikuit_core import Neuron, SynapseType

    hs = HOSTILE_SNIPPETS
    long_body = "lorem ipsum dolor sit amet " * 2000
    long_content = "# Thirty thousand characters\n\n"
    long_content += long_body[: LONG_NOTE_CHARS - len(long_content)]
    assert len(long_content) == LONG_NOTE_CHARS
    specs = [
        (
            "click_markup",
            f"# {hs['click_markup']} title\n\nBody {hs['click_markup']} [bold red]x[/]",
            "hostile",
            "concept",
        ),
        (
            "link_markup",
            f"# Link {hs['link_markup']}\n\n{hs['link_markup']} and [/] stray close",
            "hostile",
            "fact",
        ),
        (
            "escapes",
            f"# Escapes {hs['ansi_csi']}\n\n{hs['osc52']} {hs['osc8']} {hs['ansi_csi']}",
            "hostile",
            "fact",
        ),
        ("c1", f"# C1 {hs['c1_csi']}\n\nBody \x9d0;title\x9c {hs['c1_csi']}", "hostile", "concept"),
        (
            "bidi",
            f"# Bidi {hs['bidi']}\n\n{hs['bidi']} end",
            "[b]hostile-domain[/b]",
            "[i]type[/i]",
        ),
        ("long_note", long_content, "hostile", "note"),
    ]
    out: dict[str, str] = {}
    for k, (key, content, domain, ntype) in enumerate(specs):
        nid = ids.new()
        neuron = Neuron(
            id=nid,
            content=content,
            type=ntype,
            domain=domain,
            created_at=anchor - timedelta(days=5, hours=k),
            updated_at=anchor - timedelta(days=5, hours=k),
        )
        await circuit.add_neuron(neuron)
        out[key] = nid
    await circuit.add_synapse(out["click_markup"], U[1], SynapseType.RELATES_TO, weight=0.4)
    await circuit.add_synapse(out["escapes"], out["click_markup"], SynapseType.REQUIRES, weight=0.6)
    await circuit.add_synapse(out["long_note"], U[3], SynapseType.EXTENDS, weight=0.5)
    return out


def _check_user_invariants(
    desc: dict, ids_info: dict, *, n: int, n_hostile: int, n_communities: int
) -> None:
    c = desc["counts"]
    assert c["neurons_total"] == n + n_hostile, c
    assert c["neurons_retired"] == 3, c  # 2 remove_neuron + merge source
    assert c["neurons_live"] == n + n_hostile - 3, c
    assert desc["stats"]["neurons"] == c["neurons_live"]
    assert desc["stats"]["neurons_retired"] == 3
    # stats["synapses"] = networkx edges = DISTINCT live (pre, post); the
    # deliberate multi-type pair (and any created by merge redirection) collapse.
    assert desc["stats"]["synapses"] == c["synapse_pairs_live"], (desc["stats"], c)
    assert tuple(ids_info["multi_type_pair"]) in {tuple(p) for p in c["multi_type_pairs"]}
    assert c["predecessor_rows"] == 1
    assert c["spikes"] == sum(ids_info["spike_counts"].values())
    assert desc["stats"]["communities"] == n_communities


# -- agent brain ------------------------------------------------------------


async def _build_agent_brain(
    db_path: Path,
    *,
    rng: random.Random,
    ids: _Ids,
    user: dict,
    hostile: bool,
    anchor: datetime,
) -> dict[str, Any]:
    from spikuit_core import Circuit, Grade, Neuron, Spike, SynapseType

    uids = user["ids"]
    live_user = [u for u in uids["regular"] if u not in uids["retired_all"]]
    dangling = ids.new()  # well-formed id that never existed in the user brain
    retired_ref = uids["retired_ref"]
    merged_ref = uids["merge"]["source"]

    def pick() -> str:
        return rng.choice(live_user)

    # "{a}" / "{b}" become [user:<id>] tokens (str.format)
    templates = {
        "curator": [
            "# Merge proposal rejected\n\nProposed merging {a} and {b}. User rejected: "
            "surface keywords overlap but purposes differ.",
            "# Link accepted\n\nAdding requires from {a} to {b} was accepted.",
            "# Domain rename\n\nUser prefers fine-grained domains; see {a}.",
        ],
        "tutor": [
            "# Hint failed\n\nAnalogy hint for {a} failed; a worked example from {b} succeeded.",
            "# Prerequisite gap\n\nLearner missed {a} until {b} was reviewed first.",
            "# Pace\n\nShort sessions work better for {a}.",
        ],
        "qabot": [
            "# Citation style\n\nAnswer citing {a} was rejected as too long.",
            "# Good answer\n\nCombining {a} with {b} produced an accepted answer.",
            "# Retrieval miss\n\nQuery about dates should have surfaced {a}.",
        ],
    }
    A: list[str] = []
    refs: dict[str, list[str]] = {}
    domain_of: dict[str, str] = {}
    circuit = Circuit(db_path=db_path)
    await circuit.connect()
    try:
        k = 0
        for dom in AGENT_DOMAINS:
            for t in templates[dom]:
                a, b = pick(), pick()
                if k == 1:
                    b = dangling
                elif k == 4:
                    a = retired_ref
                elif k == 7:
                    a = merged_ref
                content = t.format(a=f"[user:{a}]", b=f"[user:{b}]")
                aid = ids.new("refl-") if k % 2 else ids.new()
                ref_list = [r for r in (a, b) if f"[user:{r}]" in content]
                created = anchor - timedelta(days=20 - k)
                neuron = Neuron(
                    id=aid,
                    content=content,
                    type="reflection",
                    domain=dom,
                    created_at=created,
                    updated_at=created,
                )
                await circuit.add_neuron(neuron)
                A.append(aid)
                refs[aid] = ref_list
                domain_of[aid] = dom
                k += 1
        if hostile:
            aid = ids.new()
            u = pick()
            content = (
                f"# {HOSTILE_SNIPPETS['click_markup']}\n\nReflection on [user:{u}] "
                f"{HOSTILE_SNIPPETS['link_markup']} {HOSTILE_SNIPPETS['osc52']} "
                f"{HOSTILE_SNIPPETS['bidi']} [user:[b]{u}[/b]]"
            )
            await circuit.add_neuron(
                Neuron(id=aid, content=content, type="reflection", domain="curator")
            )
            A.append(aid)
            refs[aid] = [u]
            domain_of[aid] = "curator"

        # synapses between reflections
        await circuit.add_synapse(A[0], A[1], SynapseType.RELATES_TO, weight=0.6)
        await circuit.add_synapse(A[0], A[2], SynapseType.CONTRASTS, weight=0.5)
        await circuit.add_synapse(A[3], A[4], SynapseType.REQUIRES, weight=0.7)
        await circuit.add_synapse(A[6], A[3], SynapseType.EXTENDS, weight=0.4)
        await circuit.add_synapse(A[8], A[6], SynapseType.SUMMARIZES, weight=0.8)
        await circuit.add_synapse(A[5], A[7], SynapseType.RELATES_TO, weight=0.058)

        # accepted -> strong, rejected -> miss (design doc grading)
        agent_spikes = [
            (A[0], Grade.MISS, 9),
            (A[1], Grade.STRONG, 8),
            (A[0], Grade.STRONG, 7),
            (A[4], Grade.FIRE, 3),
        ]
        spikes_by: dict[str, int] = {}
        for aid, grade, days in agent_spikes:
            await circuit.fire(
                Spike(neuron_id=aid, grade=grade, fired_at=anchor - timedelta(days=days))
            )
            spikes_by[aid] = spikes_by.get(aid, 0) + 1
    finally:
        await circuit.close()

    desc = await _describe_brain(db_path)
    assert desc["counts"]["neurons_live"] == len(A)
    assert set(desc["counts"]["per_domain"]) <= set(AGENT_DOMAINS)
    return {
        "db_path": db_path,
        "ids": {
            "all": A,
            "refs": refs,
            "dangling_ref": dangling,
            "retired_ref": retired_ref,
            "merged_ref": merged_ref,
            "with_spikes": sorted(spikes_by),
            "spike_counts": spikes_by,
            "domain_of": domain_of,
        },
        **desc,
    }


# -- description ------------------------------------------------------------


async def _describe_brain(db_path: Path) -> dict[str, Any]:
    """Counts straight from SQLite + spikuit's own ``Circuit.stats()``.

    ``stats`` is computed by a fresh Circuit, i.e. exactly what
    ``spkt stats --json`` would print for this brain.
    """
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        q = lambda sql: con.execute(sql).fetchone()[0]  # noqa: E731
        per_domain = {
            d: c
            for d, c in con.execute(
                "SELECT domain, COUNT(*) FROM neuron WHERE retired_at IS NULL "
                "GROUP BY domain ORDER BY domain"
            )
        }
        per_type = {
            t: c
            for t, c in con.execute(
                "SELECT type, COUNT(*) FROM neuron WHERE retired_at IS NULL "
                "GROUP BY type ORDER BY type"
            )
        }
        syn_types = {
            t: c
            for t, c in con.execute(
                "SELECT type, COUNT(*) FROM synapse WHERE retired_at IS NULL "
                "GROUP BY type ORDER BY type"
            )
        }
        events = {
            op: c for op, c in con.execute("SELECT op, COUNT(*) FROM event GROUP BY op ORDER BY op")
        }
        multi = [
            (a, b)
            for a, b in con.execute(
                "SELECT pre, post FROM synapse WHERE retired_at IS NULL "
                "GROUP BY pre, post HAVING COUNT(*) > 1 ORDER BY pre, post"
            )
        ]
        cs_status = {
            s: c for s, c in con.execute("SELECT status, COUNT(*) FROM changeset GROUP BY status")
        }
        counts = {
            "neurons_total": q("SELECT COUNT(*) FROM neuron"),
            "neurons_live": q("SELECT COUNT(*) FROM neuron WHERE retired_at IS NULL"),
            "neurons_retired": q("SELECT COUNT(*) FROM neuron WHERE retired_at IS NOT NULL"),
            "synapse_rows_total": q("SELECT COUNT(*) FROM synapse"),
            "synapse_rows_live": q("SELECT COUNT(*) FROM synapse WHERE retired_at IS NULL"),
            "synapse_rows_retired": q("SELECT COUNT(*) FROM synapse WHERE retired_at IS NOT NULL"),
            "synapse_pairs_live": q(
                "SELECT COUNT(*) FROM (SELECT DISTINCT pre, post FROM synapse "
                "WHERE retired_at IS NULL)"
            ),
            "multi_type_pairs": multi,
            "synapse_types_live": syn_types,
            "per_domain": per_domain,
            "per_type": per_type,
            "spikes": q("SELECT COUNT(*) FROM spike"),
            "fsrs_rows": q("SELECT COUNT(*) FROM fsrs_state"),
            "changesets": cs_status,
            "events": events,
            "predecessor_rows": q("SELECT COUNT(*) FROM neuron_predecessor"),
            "sources": q("SELECT COUNT(*) FROM source"),
        }
    finally:
        con.close()
    return {"counts": counts, "stats": await _stats(db_path)}


async def _stats(db_path: Path) -> dict[str, Any]:
    from spikuit_core import Circuit

    c = Circuit(db_path=db_path)
    await c.connect()
    try:
        return await c.stats()
    finally:
        await c.close()
