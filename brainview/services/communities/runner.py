"""Run community detection on an agent brain, with progress and cancel.

Small graphs are clustered in the calling thread. Heavy ones (``SUBPROCESS_MIN`` live
reflections or more) run in a child process (``python -m
brainview.services.communities.runner DB``), because igraph holds the GIL and would
freeze the UI: the child reads the brain read-only, prints one JSON line per stage,
then the result; :meth:`ClusteringJob.cancel` kills it. The fingerprint and the graph
are read in one read transaction, so the cache key always matches the graph used.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sqlalchemy import Connection

from brainview.core import clustering
from brainview.core.clustering import Partition
from brainview.errors import BrainviewError
from brainview.store import community_reads as reads
from brainview.store.brain import Brain, open_brain
from brainview.store.era import Era

SUBPROCESS_MIN = 3_000
"""From this many live reflections on, cluster in a child process."""

Progress = Callable[[str, float], None]


class ClusteringCancelled(BrainviewError):
    """The maintainer cancelled a clustering run."""

    kind = "cancelled"


SUMMARY_TYPES = reads.SUMMARY_TYPES


@dataclass(frozen=True)
class GraphInput:
    """The reflection graph as arrays (node index ``-1`` = not a live reflection)."""

    ids: list[str]
    pre: np.ndarray
    post: np.ndarray
    weight: np.ndarray
    policy_members: dict[str, list[int]]


def live_reflection_count(conn: Connection, era: Era) -> int:
    """Live reflections (the graph's nodes)."""
    return reads.live_reflection_count(conn, era)


def graph_fingerprint(conn: Connection, era: Era) -> str:
    """A cheap digest of everything the partition depends on (aggregates, no full scan
    into Python): live reflections/policies and live synapse rows with their weights."""
    neurons, synapses = reads.graph_aggregates(conn, era)
    parts = [clustering.ALGORITHM, clustering.SEED, clustering.RESOLUTION, *neurons, *synapses]
    return hashlib.sha256("|".join(map(repr, parts)).encode()).hexdigest()[:16]


def read_graph(conn: Connection, era: Era) -> GraphInput:
    """Live reflections (sorted ids) and every live synapse row as index arrays.

    A bidirectional row counts half, so the folded pair weight is the relation's mean
    strength.
    """
    ids = reads.live_reflection_ids(conn, era)
    index = dict(zip(ids, range(len(ids)), strict=True)).get
    rows = reads.synapse_rows(conn, era)
    pre = np.fromiter((index(r[0], -1) for r in rows), dtype=np.int64, count=len(rows))
    post = np.fromiter((index(r[1], -1) for r in rows), dtype=np.int64, count=len(rows))
    weight = np.fromiter((r[2] or 0.0 for r in rows), dtype=np.float64, count=len(rows))
    members: dict[str, list[int]] = {}
    for pid, post_id in reads.summaries(conn, era):
        i = index(post_id, -1)
        if i >= 0:
            members.setdefault(pid, []).append(i)
    return GraphInput(ids, pre, post, weight, members)


def compute(brain: Brain, *, now_iso: str, progress: Progress | None = None) -> Partition:
    """Read the reflection graph and partition it (in this process)."""
    say = progress or (lambda _stage, _fraction: None)
    started = time.perf_counter()
    say("reading the reflection graph", 0.05)
    with brain.read() as conn:
        fingerprint = graph_fingerprint(conn, brain.era)
        graph = read_graph(conn, brain.era)
    say(f"folding {graph.pre.size:,} synapse rows", 0.4)
    edges = clustering.collapse_edges(graph.pre, graph.post, graph.weight)
    n = len(graph.ids)
    say(f"detecting communities in {n:,} reflections / {len(edges):,} links", 0.5)
    membership, quality = clustering.detect(n, edges)
    say("attaching policies", 0.95)
    policies = clustering.attach_policies(graph.policy_members, membership)
    return Partition(
        fingerprint=fingerprint,
        ids=graph.ids,
        membership=membership,
        policies=policies,
        modularity=quality,
        n_edges=len(edges),
        computed_at=now_iso,
        seconds=round(time.perf_counter() - started, 3),
    )


def partition_to_json(part: Partition) -> dict[str, object]:
    """The wire form of a partition (child → parent)."""
    return {
        "fingerprint": part.fingerprint,
        "ids": part.ids,
        "membership": part.membership.tolist(),
        "policies": part.policies,
        "modularity": part.modularity,
        "n_edges": part.n_edges,
        "algorithm": part.algorithm,
        "computed_at": part.computed_at,
        "seconds": part.seconds,
    }


def partition_from_json(d: dict[str, object]) -> Partition:
    """Inverse of :func:`partition_to_json`."""
    return Partition(
        fingerprint=str(d["fingerprint"]),
        ids=[str(i) for i in d["ids"]],  # type: ignore[attr-defined]
        membership=np.asarray(d["membership"], dtype=np.int64),
        policies={str(k): int(v) for k, v in d["policies"].items()},  # type: ignore[attr-defined]
        modularity=float(d["modularity"]),  # type: ignore[arg-type]
        n_edges=int(d["n_edges"]),  # type: ignore[call-overload]
        algorithm=str(d["algorithm"]),
        computed_at=str(d["computed_at"]),
        seconds=float(d["seconds"]),  # type: ignore[arg-type]
    )


class ClusteringJob:
    """One clustering run; :meth:`run` blocks (call it from a worker thread)."""

    def __init__(
        self,
        agent_db: Path,
        *,
        now_iso: str,
        progress: Progress | None = None,
        in_process: bool | None = None,
    ) -> None:
        self.agent_db = Path(agent_db)
        self.now_iso = now_iso
        self.progress = progress or (lambda _stage, _fraction: None)
        self.in_process = in_process
        """Force in-process (``True``) or child (``False``); ``None`` decides by size."""
        self._cancelled = threading.Event()
        self._proc: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self._cancelled.is_set()

    def cancel(self) -> None:
        """Stop the run (thread-safe); :meth:`run` then raises ClusteringCancelled."""
        self._cancelled.set()
        with self._lock:
            if self._proc is not None and self._proc.poll() is None:
                self._proc.kill()

    def run(self) -> Partition:
        """Cluster the brain; raises :class:`ClusteringCancelled` when cancelled."""
        brain = open_brain(self.agent_db, "agent")
        try:
            in_process = self.in_process
            if in_process is None:
                with brain.read() as conn:
                    in_process = live_reflection_count(conn, brain.era) < SUBPROCESS_MIN
            if in_process:
                part = compute(brain, now_iso=self.now_iso, progress=self._checked)
                self._checked("done", 1.0)
                return part
        finally:
            brain.dispose()
        return self._run_child()

    def _checked(self, stage: str, fraction: float) -> None:
        if self._cancelled.is_set():
            raise ClusteringCancelled("clustering cancelled")
        self.progress(stage, fraction)

    def child_command(self) -> list[str]:
        """The child process's command line (``python -m`` this module)."""
        return [sys.executable, "-m", __name__, str(self.agent_db), "--now", self.now_iso]

    def _run_child(self) -> Partition:
        cmd = self.child_command()
        with self._lock:
            if self._cancelled.is_set():
                raise ClusteringCancelled("clustering cancelled")
            self._proc = subprocess.Popen(
                cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
        proc = self._proc
        result: Partition | None = None
        error: str | None = None
        assert proc.stdout is not None
        for line in proc.stdout:
            try:
                msg = json.loads(line)
            except ValueError:  # stray output (a library warning): not ours
                continue
            if "stage" in msg:
                if not self._cancelled.is_set():
                    self.progress(str(msg["stage"]), float(msg["fraction"]))
            elif "result" in msg:
                result = partition_from_json(msg["result"])
            elif "error" in msg:
                error = str(msg["error"])
        stderr = proc.stderr.read() if proc.stderr else ""
        proc.wait()
        if self._cancelled.is_set():
            raise ClusteringCancelled("clustering cancelled")
        if result is None:
            last = stderr.strip().splitlines()[-1:] or [f"exit code {proc.returncode}"]
            raise BrainviewError(f"clustering failed: {error or last[0]}")
        self.progress("done", 1.0)
        return result


def main(argv: list[str] | None = None) -> int:
    """Child entry point: cluster one agent brain, JSON lines on stdout."""
    ap = argparse.ArgumentParser(prog="brainview-cluster")
    ap.add_argument("db", type=Path)
    ap.add_argument("--now", required=True)
    args = ap.parse_args(argv)

    def emit(payload: dict[str, object]) -> None:
        sys.stdout.write(json.dumps(payload) + "\n")
        sys.stdout.flush()

    try:
        brain = open_brain(args.db, "agent")
        try:
            part = compute(
                brain, now_iso=args.now, progress=lambda s, f: emit({"stage": s, "fraction": f})
            )
        finally:
            brain.dispose()
    except BrainviewError as err:
        emit({"error": str(err)})
        return int(err.code)
    emit({"result": partition_to_json(part)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
