"""Queueing 10,000 proposals through intake (every check kept), in process.

The proposals are the demo generator's mix of every kind (user neurons, synapses and
domains named; 1–4 consulted and one retrieved reflection each), written against the
20k pair.  Each run gets a fresh copy of the project (SQLite backup API, not timed) and
times ``intake.submit`` — parse, every check against both brains, suspicion flags and
the insert, all-or-nothing.  The reference, in the same run, is the floor of the same
work in raw sqlite3: the inserts of the same rows into a copy in one transaction.

    python bench/bench_intake.py [--size 20k] [--proposals 10000] [--runs 3]
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from common import brain_info, copy_project, interleave

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
TARGET_S = 1.0


def _proposals(root: Path, info: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """``n`` proposals of every user-brain kind, each naming distinct neurons."""
    conn = sqlite3.connect(f"file:{root / '.spikuit' / 'circuit.db'}?mode=ro", uri=True)
    neurons = conn.execute(
        "SELECT id, domain FROM neuron WHERE retired_at IS NULL ORDER BY id"
    ).fetchall()
    synapses = conn.execute(
        "SELECT s.pre, s.post, s.type, s.weight FROM synapse s "
        "JOIN neuron a ON a.id = s.pre AND a.retired_at IS NULL "
        "JOIN neuron b ON b.id = s.post AND b.retired_at IS NULL "
        "WHERE s.retired_at IS NULL ORDER BY s.pre, s.post, s.type LIMIT ?",
        (n * 2 // 9 + 2,),
    ).fetchall()
    conn.close()
    existing = {(a, b, t) for a, b, t, _w in synapses}
    domains = sorted({d for _n, d in neurons if d})
    themes = [ids for ids in info["themes"].values() if len(ids) >= 3]
    rng = random.Random(5)
    used = {x for a, b, _t, _w in synapses for x in (a, b)}
    free = [nid for nid, _d in neurons if nid not in used]
    picks = itertools.cycle(rng.sample(free, len(free)))
    syn = iter(synapses)
    kinds = ["retire_neuron", "add_synapse", "remove_synapse", "set_synapse_weight",
             "set_domain", "edit_content", "note", "merge_neurons", "rename_domain"]  # fmt: skip
    out: list[dict[str, Any]] = []
    for i in range(n):
        kind = kinds[i % len(kinds)]
        if kind == "retire_neuron":
            params: dict[str, Any] = {"neuron": next(picks)}
        elif kind == "add_synapse":
            a, b = next(picks), next(picks)
            params = {"pre": a, "post": b, "type": "relates_to", "weight": 0.5}
            assert (a, b, "relates_to") not in existing
        elif kind in ("remove_synapse", "set_synapse_weight"):
            a, b, typ, _w = next(syn)
            params = {"pre": a, "post": b, "type": typ}
            if kind == "set_synapse_weight":
                params["weight"] = 0.42
        elif kind == "set_domain":
            params = {"neurons": [next(picks), next(picks)], "domain": rng.choice(domains)}
        elif kind == "edit_content":
            nid = next(picks)
            params = {"neuron": nid, "content": f"# Clarified\n\nRewritten note for {nid}."}
        elif kind == "merge_neurons":
            params = {"keep": next(picks), "merge": [next(picks)]}
        elif kind == "rename_domain":
            old = domains[i % len(domains)]
            params = {"old": old, "new": f"{old}-notes-{i}"}
        else:
            params = {"neurons": [next(picks)]}
        theme = themes[i % len(themes)]
        chosen = rng.sample(theme, min(len(theme), 1 + i % 4 + 1))
        out.append(
            {
                "id": f"bench-{i:06d}",
                "skill": "curator",
                "kind": kind,
                "params": params,
                "rationale": "Quiz answers show the user links these two.",
                "consulted": [{"reflection": r, "stance": "support"} for r in chosen[:-1]],
                "retrieved": chosen[-1:],
                "created_at": "2026-11-29T09:00:00+00:00",
                "runtime": "curator-model-a",
            }
        )
    return out


def ours(root: Path, scratch: Path, proposals: list[dict[str, Any]]):  # type: ignore[no-untyped-def]
    from brainview.services.intake import submit
    from brainview.services.project import Project

    def run() -> float:
        shutil.rmtree(scratch / "p", ignore_errors=True)
        copy = copy_project(root, scratch / "p")
        with Project.locate(copy, write_agent=True) as project:
            t = time.perf_counter()
            submit(project, proposals, source="bench", now=NOW)
            return time.perf_counter() - t

    return run


def raw_inserts(root: Path, scratch: Path, proposals: list[dict[str, Any]]):  # type: ignore[no-untyped-def]
    """The floor: the same proposal and consult rows inserted with sqlite3, no checks."""

    def run() -> float:
        shutil.rmtree(scratch / "r", ignore_errors=True)
        copy = copy_project(root, scratch / "r")
        conn = sqlite3.connect(copy / ".spikuit" / "agent" / "circuit.db", isolation_level=None)
        cols = [r[1] for r in conn.execute("PRAGMA table_info(brainview_proposal)")]
        t = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(
            "INSERT INTO brainview_proposal (id, skill, kind, params_json, rationale, "
            "created_at, received_at, status, runtime, source, summary, n_consulted) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, 'bench', ?, ?)",
            [
                (
                    p["id"], p["skill"], p["kind"], json.dumps(p["params"], sort_keys=True),
                    p["rationale"], p["created_at"], "2026-11-30T09:00:00+00:00", p["runtime"],
                    p["kind"], len(p["consulted"]),
                )
                for p in proposals
            ],
        )  # fmt: skip
        conn.executemany(
            "INSERT INTO brainview_consult (proposal_id, reflection_id, role, stance, note, "
            "seq) VALUES (?, ?, ?, ?, ?, ?)",
            [
                (p["id"], c["reflection"], "consulted", c["stance"], None, q)
                for p in proposals
                for q, c in enumerate(p["consulted"])
            ]
            + [
                (p["id"], r, "retrieved", None, None, q)
                for p in proposals
                for q, r in enumerate(p["retrieved"])
            ],
        )  # fmt: skip
        conn.execute("COMMIT")
        secs = time.perf_counter() - t
        conn.close()
        assert "summary" in cols
        return secs

    return run


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="20k")
    ap.add_argument("--proposals", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    root, info = brain_info(args.size)
    proposals = _proposals(root, info, args.proposals)
    scratch = Path(tempfile.mkdtemp())
    try:
        res = interleave(
            {
                "intake.submit": ours(root, scratch, proposals),
                "raw sqlite3 inserts": raw_inserts(root, scratch, proposals),
            },
            args.runs,
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    ours_s = res["intake.submit"]["median"]
    out = {
        "bench": "intake",
        "size": args.size,
        "proposals": len(proposals),
        **res,
        "ratio_to_raw": round(ours_s / res["raw sqlite3 inserts"]["median"], 2),
        "target_s": TARGET_S,
        "met": ours_s <= TARGET_S,
    }
    print(json.dumps(out))
    return 0 if out["met"] else 1


if __name__ == "__main__":
    sys.exit(main())
