"""The demo agent brain (reflections, clusters, policies, adversarial lessons) and
its queue of curator proposals, submitted through the real intake path.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from brainview.demo import content
from brainview.demo.generator import (
    SYN_SQL,
    DemoInfo,
    DemoSpec,
    _connect,
    _edges_rows,
    _finish,
    _spike_history,
    _ts,
    _write_spikes,
    make_id,
)

PROFILES = ["reliable", "reliable", "mixed", "failing", "fading", "new"]


def _live_user_ids(info: DemoInfo) -> list[str]:
    retired = set(info.retired_user_ids)
    return [u for u in info.user_ids if u not in retired]


def build_agent_brain(path: Path, spec: DemoSpec, info: DemoInfo) -> None:
    """Reflections in themed clusters with ``[user:…]`` references and spike histories."""
    rng = random.Random(spec.seed + 1)
    conn = _connect(path)
    users = _live_user_ids(info)
    themes = content.THEMES
    rows: list[tuple[object, ...]] = []
    n = spec.reflections
    for i in range(n):
        rid = make_id("r", spec.seed, i)
        theme_i = i % len(themes)
        name, template = themes[theme_i]
        a, b = rng.sample(users, 2)
        text = template.format(a=f"[user:{a}]", b=f"[user:{b}]", aspect=rng.choice(content.ASPECTS))
        skill = rng.choice(content.SKILL_MIX)
        created = spec.now - timedelta(days=rng.uniform(5, spec.history_days))
        rows.append((rid, text, "reflection", skill, None, _ts(created), _ts(created), None))
        info.reflection_ids.append(rid)
        info.themes.setdefault(name, []).append(rid)
        if len(rows) >= 20_000:
            _insert(conn, rows)
    if spec.adversarial and n >= 20:
        for k, template in enumerate(content.ADVERSARIAL):
            rid = make_id("r", spec.seed, n + k)
            rows.append(
                (
                    rid,
                    template.replace("{a}", users[k]),
                    "reflection",
                    "curator",
                    None,
                    _ts(spec.now - timedelta(days=2)),
                    _ts(spec.now),
                    None,
                )
            )
            info.adversarial_ids.append(rid)
        rid = make_id("r", spec.seed, n + 10)
        rows.append(
            (
                rid,
                content.huge_reflection(users[0]),
                "reflection",
                "qabot",
                None,
                _ts(spec.now - timedelta(days=1)),
                _ts(spec.now),
                None,
            )
        )
        info.adversarial_ids.append(rid)
    _insert(conn, rows)
    _cluster_edges(conn, spec, info, rng)
    _policies(conn, spec, info)
    everyone = info.reflection_ids + info.adversarial_ids
    planted = set(info.adversarial_ids)
    for k, rid in enumerate(everyone):
        history = _spike_history(rng, rng.choice(PROFILES), spec.now, spec.history_days)
        history = _after_creation(conn, rid, history, keep_created=rid in planted)
        _write_spikes(conn, rid, history, card_id=100_000 + k, session=f"use-{k % 25}")
    if spec.adversarial and n >= 20:
        _orphan_policy(conn, spec, info)
    _finish(conn)


def _after_creation(
    conn: sqlite3.Connection,
    rid: str,
    history: list[tuple[int, datetime]],
    *,
    keep_created: bool,
) -> list[tuple[int, datetime]]:
    """No lesson is used before it exists: a planted lesson (created days ago) keeps only
    the uses after its creation; any other is dated an hour before its first use."""
    (created_s,) = conn.execute("SELECT created_at FROM neuron WHERE id = ?", (rid,)).fetchone()
    created = datetime.fromisoformat(created_s)
    if keep_created:
        return [(g, t) for g, t in history if t > created]
    if history and history[0][1] < created:
        earlier = _ts(history[0][1] - timedelta(hours=1))
        conn.execute(
            "UPDATE neuron SET created_at = ?, updated_at = ? WHERE id = ?", (earlier, earlier, rid)
        )
    return history


def date_before_first_use(path: Path) -> int:
    """After the demo's past decisions: a lesson a past decision graded before the
    generator dated it is dated an hour before that first grade (no lesson is reviewed
    before it was created).  Returns how many were re-dated."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT n.id, min(s.fired_at) FROM neuron n JOIN spike s ON s.neuron_id = n.id "
            "GROUP BY n.id HAVING min(s.fired_at) < n.created_at"
        ).fetchall()
        for rid, first in rows:
            earlier = _ts(datetime.fromisoformat(first) - timedelta(hours=1))
            conn.execute("UPDATE neuron SET created_at = ? WHERE id = ?", (earlier, rid))
        conn.commit()
        return len(rows)
    finally:
        conn.close()


def _insert(conn: sqlite3.Connection, rows: list[tuple[object, ...]]) -> None:
    conn.executemany(
        "INSERT INTO neuron (id, content, type, domain, source, created_at, updated_at, "
        "community_id) VALUES (?,?,?,?,?,?,?,?)",
        rows,
    )
    rows.clear()


def _cluster_edges(
    conn: sqlite3.Connection, spec: DemoSpec, info: DemoInfo, rng: random.Random
) -> None:
    """Dense ``relates_to`` inside a theme, a few ``contrasts`` across themes."""
    edges: list[tuple[object, ...]] = []
    names = list(info.themes)
    for t, name in enumerate(names):
        members = info.themes[name]
        for j, rid in enumerate(members):
            for _ in range(2):
                other = members[
                    (j + rng.randint(1, max(1, min(6, len(members) - 1)))) % len(members)
                ]
                if other != rid:
                    edges.extend(
                        _edges_rows(rid, other, "relates_to", rng.uniform(0.4, 0.9), spec.now, rng)
                    )
            if rng.random() < 0.08:
                far = info.themes[names[(t + 1 + rng.randint(0, 3)) % len(names)]]
                edges.extend(
                    _edges_rows(
                        rid, rng.choice(far), "contrasts", rng.uniform(0.1, 0.4), spec.now, rng
                    )
                )
            if len(edges) > 50_000:
                conn.executemany(SYN_SQL, edges)
                edges.clear()
    conn.executemany(SYN_SQL, edges)


def _policies(conn: sqlite3.Connection, spec: DemoSpec, info: DemoInfo) -> None:
    """Two ``policy`` neurons that ``summarizes`` two themes."""
    texts = {
        "keyword overlap": "Policy: don't merge neurons that share surface keywords but "
        "differ in role; propose a contrasts link instead.",
        "prerequisite direction": "Policy: a requires link points from the advanced neuron to "
        "its prerequisite; check the direction against the user's own ordering.",
    }
    rng = random.Random(spec.seed + 2)
    for k, (theme, text) in enumerate(texts.items()):
        pid = make_id("p", spec.seed, k)
        conn.execute(
            "INSERT INTO neuron (id, content, type, domain, source, created_at, updated_at) "
            "VALUES (?,?,?,?,?,?,?)",
            (
                pid,
                text,
                "policy",
                "curator",
                None,
                _ts(spec.now - timedelta(days=20)),
                _ts(spec.now - timedelta(days=20)),
            ),
        )
        info.policy_ids.append(pid)
        conn.executemany(
            SYN_SQL,
            [
                row
                for m in info.themes.get(theme, [])
                for row in _edges_rows(pid, m, "summarizes", 0.6, spec.now, rng)
            ],
        )


def _orphan_policy(conn: sqlite3.Connection, spec: DemoSpec, info: DemoInfo) -> None:
    """An outdated policy: three of the four lessons it summarises were retired since
    (superseded), so a consolidation proposes retiring it.  Its own random stream, so
    the rest of the demo does not move."""
    rng = random.Random(spec.seed + 7)
    made, gone = spec.now - timedelta(days=80), spec.now - timedelta(days=40)
    base = spec.reflections + 20
    for k in range(3):
        rid = make_id("r", spec.seed, base + k)
        text = (
            "Superseded: merge neurons whenever their titles match word for word "
            f"(lesson {k + 1} of an old habit, retired after it merged homonyms)."
        )
        conn.execute(
            "INSERT INTO neuron (id, content, type, domain, source, created_at, updated_at, "
            "retired_at) VALUES (?,?,?,?,?,?,?,?)",
            (rid, text, "reflection", "curator", None, _ts(made), _ts(gone), _ts(gone)),
        )
        info.superseded_ids.append(rid)
    pid = make_id("p", spec.seed, 2)
    conn.execute(
        "INSERT INTO neuron (id, content, type, domain, source, created_at, updated_at) "
        "VALUES (?,?,?,?,?,?,?)",
        (
            pid,
            "Policy: titles that match word for word are the same concept; merge them.",
            "policy",
            "curator",
            None,
            _ts(made),
            _ts(made),
        ),
    )
    info.orphan_policy_id = pid
    live = sorted(info.themes.get("keyword overlap", info.reflection_ids))[:1]
    conn.executemany(
        SYN_SQL,
        [
            row
            for m in [*info.superseded_ids, *live]
            for row in _edges_rows(pid, m, "summarizes", 0.6, spec.now, rng)
        ],
    )
    # Retiring a neuron retires its synapses with it (Spikuit's cascade).
    conn.executemany(
        "UPDATE synapse SET retired_at = ? WHERE pre = ? AND post = ?",
        [(_ts(gone), pid, rid) for rid in info.superseded_ids],
    )


def _user_rows(root: Path) -> tuple[list[tuple[str, str]], list[tuple[str, str, str, float]]]:
    conn = sqlite3.connect(root / ".spikuit" / "circuit.db")
    neurons = conn.execute(
        "SELECT id, domain FROM neuron WHERE retired_at IS NULL AND type != "
        "'community_summary' ORDER BY id"
    ).fetchall()
    synapses = conn.execute(
        "SELECT s.pre, s.post, s.type, s.weight FROM synapse s "
        "JOIN neuron a ON a.id = s.pre AND a.retired_at IS NULL "
        "JOIN neuron b ON b.id = s.post AND b.retired_at IS NULL "
        "WHERE s.retired_at IS NULL AND s.type IN ('requires','extends') "
        "ORDER BY s.pre, s.post LIMIT 400"
    ).fetchall()
    conn.close()
    return neurons, synapses


def demo_proposals(root: Path, spec: DemoSpec, info: DemoInfo) -> list[dict[str, Any]]:
    """A mix of every kind, each with consulted (stanced) and retrieved reflections."""
    rng = random.Random(spec.seed + 3)
    neurons, synapses = _user_rows(root)
    ids = [n for n, _d in neurons]
    domains = sorted({d for _n, d in neurons if d})
    used: set[str] = set()
    existing = {(a, b, t) for a, b, t, _w in synapses}

    def fresh(k: int = 1) -> list[str]:
        pick = [x for x in rng.sample(ids, min(len(ids), k * 4 + 8)) if x not in used][:k]
        used.update(pick)
        return pick

    kinds = [
        "merge_neurons",
        "retire_neuron",
        "add_synapse",
        "remove_synapse",
        "set_synapse_weight",
        "set_domain",
        "edit_content",
        "note",
        "merge_neurons",
        "add_synapse",
        "retire_neuron",
        "rename_domain",
        "merge_domains",
    ]
    out: list[dict[str, Any]] = []
    theme_names = list(info.themes)
    syn_iter = iter(synapses)
    for i in range(spec.proposals):
        kind = kinds[i % len(kinds)]
        if kind == "merge_neurons":
            keep, merge = fresh(2)
            params: dict[str, Any] = {"keep": keep, "merge": [merge]}
            why = "Both notes define the same idea with different wording."
        elif kind == "retire_neuron":
            gone = fresh()[0]
            newer = ids[(ids.index(gone) + 1) % len(ids)]  # no draw: the rest stays as it was
            params = {"neuron": gone}
            why = f"Superseded by [user:{newer}], a newer, fuller note."
        elif kind == "add_synapse":
            a, b = fresh(2)
            typ = rng.choice(["requires", "extends", "relates_to", "contrasts"])
            while (a, b, typ) in existing:
                typ = "relates_to"
            params = {"pre": a, "post": b, "type": typ, "weight": round(rng.uniform(0.3, 0.7), 2)}
            why = "Quiz answers show the user links these two."
        elif kind in ("remove_synapse", "set_synapse_weight"):
            a, b, typ, w = next(syn_iter)
            params = {"pre": a, "post": b, "type": typ}
            if kind == "set_synapse_weight":
                params["weight"] = round(min(1.0, max(0.05, w + rng.choice([-0.3, 0.3]))), 2)
            why = "The link's strength does not match how often they are reviewed together."
        elif kind == "set_domain":
            params = {"neurons": fresh(rng.randint(1, 3)), "domain": rng.choice(domains)}
            why = "These notes belong with their siblings."
        elif kind == "edit_content":
            nid = fresh()[0]
            params = {"neuron": nid, "content": f"# Clarified\n\nRewritten note for {nid}."}
            why = "The note's first line is ambiguous."
        elif kind == "rename_domain":
            old = domains[i % len(domains)]
            params, why = {"old": old, "new": f"{old}-notes"}, "Align with the user's folders."
        elif kind == "merge_domains":
            params = {"sources": [domains[0]], "target": domains[1]}
            why = "Two small domains that the user studies together."
        else:
            params = {"neurons": fresh(1)}
            why = "This neuron is reviewed often but never linked; worth a look."
        theme = info.themes[theme_names[i % len(theme_names)]]
        picks = rng.sample(theme, min(len(theme), rng.randint(2, 5)))
        consulted = [
            {
                "reflection": r,
                "stance": rng.choices(["support", "oppose", "annotate"], [7, 2, 1])[0],
            }
            for r in picks[:-1]
        ]
        retrieved = [picks[-1]] if len(picks) > 1 else []
        created = spec.now - timedelta(hours=rng.uniform(1, 24 * 10))
        out.append(
            {
                "id": make_id("prop", spec.seed, i),
                "skill": "curator",
                "kind": kind,
                "params": params,
                "rationale": why,
                "consulted": consulted,
                "retrieved": retrieved,
                "created_at": _ts(created),
                "runtime": rng.choice(["curator-model-a", "curator-model-b"]),
            }
        )
    return out


def queue_demo_proposals(root: Path, spec: DemoSpec, info: DemoInfo) -> None:
    """Submit through intake, then change the user brain so a few go stale."""
    from brainview.services.intake import submit
    from brainview.services.project import Project

    proposals = demo_proposals(root, spec, info)
    with Project.locate(root, write_agent=True) as project:
        submit(project, proposals, source="demo", now=spec.now)
    info.proposal_ids = [p["id"] for p in proposals]
    # Later edits in the user brain make three proposals stale.
    conn = sqlite3.connect(root / ".spikuit" / "circuit.db")
    later = _ts(spec.now - timedelta(minutes=30))
    for p in [p for p in proposals if p["kind"] in ("retire_neuron", "edit_content")][:3]:
        nid = p["params"]["neuron"]
        conn.execute(
            "UPDATE neuron SET updated_at = ?, content = content || ? WHERE id = ?",
            (later, "\n\n(edited by the user)", nid),
        )
        info.stale_proposal_ids.append(p["id"])
    conn.commit()
    conn.close()
