"""Benchmark: ``review.decide`` vs a hand-written raw sqlite3 transaction.

Builds a demo project, queues ``2 × (warmup + runs)`` proposals that each consult the
same 20 reflections (one theme, so STDP has linked pairs to update), then decides
them alternately with ``review.decide`` and with a minimal raw ``sqlite3``
transaction doing the same domain writes (claim, decision row, 20 spikes, 20 FSRS
card upserts, STDP updates) — interleaved, alternating which side goes first.  Both
sides use the same non-fuzzing scheduler and the same ``now`` sequence.  The raw side
writes no effect log and no brainview_grade rows: that bookkeeping is what the ratio
charges to ``decide``.

Prints one JSON line: wall-clock medians (ms) and their ratio (the target), the
median of per-pair ratios (each pair ran back to back, so it is steadier on a busy
machine) and CPU-time medians (``time.thread_time``: SQLite runs in this thread, so
this is the work done, without fsync waits or other processes' load).

    python bench/bench_decide.py [--runs 60] [--warmup 5] [--dir /dev/shm]
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta
from pathlib import Path

from fsrs import Scheduler

from brainview.core import fsrs_math
from brainview.demo.generator import DEMO_NOW, DemoSpec, build_project
from brainview.services import intake, review
from brainview.services.project import Project

N_CONSULTED = 20
TAU, A_PLUS, A_MINUS = 7.0, 0.03, 0.036


def _proposals(info, reflections: list[str], n: int) -> list[dict]:
    users = [u for u in info.user_ids if u not in set(info.retired_user_ids)]
    return [
        {
            "id": f"bench-{i:04d}",
            "skill": "curator",
            "kind": "note",
            "params": {"neurons": [users[i % len(users)]]},
            "rationale": "benchmark proposal",
            "consulted": [{"reflection": r, "stance": "support"} for r in reflections],
            "created_at": fsrs_math.format_ts(DEMO_NOW),
        }
        for i in range(n)
    ]


def raw_decide(conn: sqlite3.Connection, pid: str, now: datetime, sched: Scheduler) -> None:
    """The same domain writes, by hand, in one transaction."""
    now_s = fsrs_math.format_ts(now)
    conn.execute("BEGIN IMMEDIATE")
    try:
        cur = conn.execute(
            "UPDATE brainview_proposal SET status='accepted', version=version+1 "
            "WHERE id=? AND status='pending'",
            (pid,),
        )
        if cur.rowcount != 1:
            raise RuntimeError(f"{pid} not pending")
        did = f"dec-{uuid.uuid4().hex[:12]}"
        conn.execute(
            "INSERT INTO brainview_decision (id, proposal_id, verdict, reason, decider, "
            "decided_at, seconds_on_screen, new_reflection_id, apply_state) "
            "VALUES (?,?,?,?,?,?,?,?,?)",
            (did, pid, "accept", None, "raw", now_s, None, None, "recorded"),
        )
        fired = [
            r
            for (r,) in conn.execute(
                "SELECT reflection_id FROM brainview_consult WHERE proposal_id=? "
                "AND role='consulted' ORDER BY seq",
                (pid,),
            )
        ]
        marks = ",".join("?" * len(fired))
        syn = conn.execute(
            f"SELECT pre, post, type, weight, co_fires FROM synapse WHERE "
            f"(pre IN ({marks}) OR post IN ({marks})) AND +retired_at IS NULL",
            (*fired, *fired),
        ).fetchall()
        others = sorted({s[0] for s in syn} | {s[1] for s in syn})
        lo = (now - timedelta(days=TAU + 2)).date().isoformat()
        last: dict[str, datetime] = {}
        for nid, ts, _jd in conn.execute(
            "SELECT neuron_id, fired_at, MAX(julianday(fired_at)) FROM spike WHERE neuron_id IN "
            f"({','.join('?' * len(others))}) AND fired_at >= ? "
            "AND julianday(fired_at) <= julianday(?) GROUP BY neuron_id",
            (*others, lo, now_s),
        ).fetchall():
            t = fsrs_math.parse_ts(ts)
            if (now - t).total_seconds() <= TAU * 86400:
                last[nid] = t
        for rid in fired:
            conn.execute(
                "INSERT INTO spike (neuron_id, grade, fired_at, session_id, notes) "
                "VALUES (?,?,?,?,?)",
                (rid, 4, now_s, did, f"brainview:{pid}"),
            )
        cards = dict(
            conn.execute(
                f"SELECT neuron_id, card_json FROM fsrs_state WHERE neuron_id IN ({marks})", fired
            )
        )
        upserts = []
        for rid in fired:
            card = fsrs_math.card_from_json(cards[rid])
            card, _ = sched.review_card(card, fsrs_math.GRADE_TO_RATING[4], now)
            upserts.append((rid, card.to_json()))
        conn.executemany(
            "INSERT INTO fsrs_state (neuron_id, card_json) VALUES (?, ?) "
            "ON CONFLICT(neuron_id) DO UPDATE SET card_json=excluded.card_json",
            upserts,
        )
        weights = {(p, q, t): [w, c] for p, q, t, w, c in syn}
        touching: dict[str, list[tuple[str, str, str]]] = {}
        for k in sorted(weights):
            touching.setdefault(k[0], []).append(k)
            touching.setdefault(k[1], []).append(k)
        for rid in fired:
            for k in touching.get(rid, []):
                other = k[0] if k[1] == rid else k[1]
                if other == rid or other not in last:
                    continue
                dt = (now - last[other]).total_seconds() / 86400
                if 0 <= dt <= TAU:
                    wc = weights[k]
                    step = A_PLUS if k[1] == rid else -A_MINUS
                    wc[0] = min(1.0, max(0.05, wc[0] + step * math.exp(-dt / TAU)))
                    wc[1] += 1
            last[rid] = now
        conn.executemany(
            "UPDATE synapse SET weight=?, co_fires=?, last_co_fire=?, updated_at=? "
            "WHERE pre=? AND post=? AND type=?",
            [(w, c, now_s, now_s, p, q, t) for (p, q, t), (w, c) in weights.items()],
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--reflections", type=int, default=600)
    ap.add_argument("--dir", type=Path, default=None, help="where to build (default: a tempdir)")
    ap.add_argument("--target", type=float, default=2.0)
    args = ap.parse_args(argv)

    base = Path(tempfile.mkdtemp(prefix="bench-decide-", dir=args.dir))
    try:
        root = base / "proj"
        info = build_project(root, DemoSpec(reflections=args.reflections, proposals=0))
        theme = max(info.themes.values(), key=len)
        consulted = theme[:N_CONSULTED]
        total = 2 * (args.warmup + args.runs)
        sched = Scheduler(enable_fuzzing=False)
        with Project.locate(root, write_agent=True) as project:
            intake.submit(project, _proposals(info, consulted, total), source="bench", now=DEMO_NOW)
            raw = sqlite3.connect(project.paths.agent_db, isolation_level=None, timeout=5)
            raw.execute("PRAGMA busy_timeout=5000")
            raw.execute("PRAGMA journal_mode=WAL")
            wall: dict[str, list[float]] = {"ours": [], "raw": []}
            cpu: dict[str, list[float]] = {"ours": [], "raw": []}
            steps = 0
            for i in range(args.warmup + args.runs):
                order = ("ours", "raw") if i % 2 == 0 else ("raw", "ours")
                for side in order:
                    k = 2 * i + (0 if side == "ours" else 1)
                    pid, now = f"bench-{k:04d}", DEMO_NOW + timedelta(minutes=k + 1)
                    t0, c0 = time.perf_counter(), time.thread_time()
                    if side == "ours":
                        res = review.decide(
                            project, pid, "accept", decider="bench", now=now, scheduler=sched
                        )
                        steps = len(res.stdp)
                    else:
                        raw_decide(raw, pid, now, sched)
                    if i >= args.warmup:
                        wall[side].append(time.perf_counter() - t0)
                        cpu[side].append(time.thread_time() - c0)
            raw.close()
        med = {k: statistics.median(v) * 1e3 for k, v in wall.items()}
        cpu_med = {k: statistics.median(v) * 1e3 for k, v in cpu.items()}
        ratio = med["ours"] / med["raw"]
        pairs = statistics.median(o / r for o, r in zip(wall["ours"], wall["raw"], strict=True))
        print(
            json.dumps(
                {
                    "bench": "decide",
                    "runs": args.runs,
                    "consulted": N_CONSULTED,
                    "stdp_steps": steps,
                    "ours_ms_median": round(med["ours"], 3),
                    "raw_ms_median": round(med["raw"], 3),
                    "ratio": round(ratio, 3),
                    "pair_ratio_median": round(pairs, 3),
                    "ours_cpu_ms_median": round(cpu_med["ours"], 3),
                    "raw_cpu_ms_median": round(cpu_med["raw"], 3),
                    "cpu_ratio": round(cpu_med["ours"] / cpu_med["raw"], 3),
                    "target": args.target,
                    "ok": ratio <= args.target,
                    "dir": str(base),
                }
            )
        )
        return 0 if ratio <= args.target else 1
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
