"""The other processes of the soak test: curators, a plain-sqlite3 user, real Spikuit.

Run as ``python -m tests.soak.actors ROLE ROOT SEED STOP_FILE``; each loops until the
stop file exists (or its own hard deadline passes), then prints one JSON line of what
it did.  Deterministic by seed; the interleaving with the console is not.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import random
import sqlite3
import sys
import time
from pathlib import Path

DEADLINE_S = 50.0


def _live(conn: sqlite3.Connection, sql: str) -> list[str]:
    return [r[0] for r in conn.execute(sql)]


def curator(root: Path, seed: int, stop: Path) -> dict[str, int]:
    """``brainview propose`` in a loop: edits of user neurons, consulting reflections."""
    from brainview.cli import main

    rng = random.Random(seed)
    sent = failed = 0
    end = time.monotonic() + DEADLINE_S
    while not stop.exists() and time.monotonic() < end and sent < 25:
        user = sqlite3.connect(root / ".spikuit" / "circuit.db", timeout=10)
        agent = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db", timeout=10)
        try:
            neurons = _live(user, "SELECT id FROM neuron WHERE retired_at IS NULL ORDER BY id")
            refl = _live(
                agent,
                "SELECT id FROM neuron WHERE type='reflection' AND retired_at IS NULL ORDER BY id",
            )
        finally:
            user.close()
            agent.close()
        picked = rng.sample(refl, 2)
        proposal = {
            "id": f"soak-{seed}-{sent}",
            "skill": "curator",
            "kind": "edit_content",
            "params": {"neuron": rng.choice(neurons), "content": f"soak edit {seed}/{sent}"},
            "rationale": f"curator {seed} tidies wording ({sent})",
            "consulted": [
                {"reflection": picked[0], "stance": "support"},
                {"reflection": picked[1], "stance": rng.choice(["oppose", "annotate"])},
            ],
        }
        path = stop.with_name(f"proposal-{seed}-{sent}.json")
        path.write_text(json.dumps(proposal))
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = main(["propose", str(path), "-C", str(root)])
        sent += code == 0
        failed += code != 0
        time.sleep(rng.uniform(0.6, 1.6))
    return {"sent": sent, "failed": failed}


def plain_sqlite(root: Path, seed: int, stop: Path) -> dict[str, int]:
    """Reads both brains and writes a side table, opening and closing every time."""
    rng = random.Random(seed)
    rounds = 0
    end = time.monotonic() + DEADLINE_S
    dbs = [root / ".spikuit" / "circuit.db", root / ".spikuit" / "agent" / "circuit.db"]
    while not stop.exists() and time.monotonic() < end:
        for db in dbs:
            conn = sqlite3.connect(db, timeout=10)
            try:
                conn.execute("SELECT count(*) FROM neuron").fetchone()
                conn.execute("CREATE TABLE IF NOT EXISTS soak_probe (n INTEGER, at REAL)")
                conn.execute("INSERT INTO soak_probe VALUES (?, ?)", (rounds, time.time()))
                conn.commit()
            finally:
                conn.close()
        rounds += 1
        time.sleep(rng.uniform(0.05, 0.25))
    return {"rounds": rounds}


def spikuit(root: Path, seed: int, stop: Path) -> dict[str, int]:
    """Real ``spikuit_core.Circuit`` opens the user brain, reads its stats, closes."""
    from spikuit_core import Circuit

    async def loop() -> int:
        rounds = 0
        end = time.monotonic() + DEADLINE_S
        while not stop.exists() and time.monotonic() < end:
            circuit = Circuit(db_path=root / ".spikuit" / "circuit.db")
            await circuit.connect()
            try:
                await circuit.stats()
            finally:
                await circuit.close()
            rounds += 1
            await asyncio.sleep(1.0)
        return rounds

    return {"rounds": asyncio.run(loop())}


ROLES = {"curator": curator, "sqlite": plain_sqlite, "spikuit": spikuit}

if __name__ == "__main__":
    role, root_s, seed_s, stop_s = sys.argv[1:5]
    print(json.dumps({role: ROLES[role](Path(root_s), int(seed_s), Path(stop_s))}), flush=True)
