"""Ten signed-in people deciding from one queue: a decision's p95, 10 sessions vs 1.

A demo project gets ``sessions × decisions`` extra proposals (a note on a user neuron,
three live reflections consulted), ``team-SS-KKK``, and one reviewer per session in
its users file, each with a bearer token.  ``brainview serve --screen triage`` runs as
the real server; each session is a websocket client (aiohttp) signed in with its token,
so the server starts one real console process per person, exactly as for a browser.
Each client filters its queue to its own proposals (``/`` + ``team-SS-``, Enter; each
step waits for what the console drew, see :func:`_own_queue`); once every session is
set up they start together, each pressing ``a`` every ``think`` seconds (jittered) and
measuring, for each press, the time until its decision row is in the agent brain (one
read-only poller of this process, every 2 ms, for all clients): keystroke → websocket →
server → console → decide → commit.

The same is run with one session, then with ``--sessions`` at once; the target is the
p95 with ten at most twice the p95 with one (issue 19).  With ``--rules on`` (the
default) the two-person rule is on and covers the ``note`` kind, and every proposal
already holds a first accept by ``bench-first`` (:func:`first_votes`): each press is
the second person's accept, so the rule's whole hot path — its plan read before the
write and the vote re-read inside the decision's transaction — is measured
(issue 34); ``--rules off`` measures without it.  The CPU seconds the server,
the consoles and this process spent while deciding are printed too, with the load
average (the machine may be shared): where the time goes.

    python bench/bench_team.py [--sessions 10] [--decisions 12] [--think 5] [--stress]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from brainview.core import fsrs_math
from brainview.demo.generator import DEMO_NOW, DemoSpec, build_project

TARGET = 2.0
THINK_S = 5.0
"""A fast reviewer's pace: ten of them decide two proposals a second together.  The
demo's decision history models 8–75 s a decision; ``--think 1 --stress`` (ten a
second) shows where two cores saturate."""
READY_S = 60.0
DECIDE_TIMEOUT_S = 30.0
SAID = re.compile(r"(?:efused|flagged|stale|✓)(?:[^\n]*\n){0,4}")
"""What a console says about a decision (a refusal, a flag, done): the notice's lines."""
ANSI = re.compile(rb"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")


def build(root: Path, counts: list[int]) -> None:
    """The demo project plus each session's own proposals (``counts[s]`` for session
    ``s``)."""
    from brainview.services import intake
    from brainview.services.project import Project

    info = build_project(root, DemoSpec())
    users = [u for u in info.user_ids if u not in set(info.retired_user_ids)]
    bad = set(info.adversarial_ids) | set(info.superseded_ids)
    theme = [r for r in max(info.themes.values(), key=len) if r not in bad]
    proposals = [
        {
            "id": f"team-{s:02d}-{k:03d}",
            "kind": "note",
            "params": {"neurons": [users[(s * 100 + k) % len(users)]]},
            "rationale": "bench: a reviewer's decision",
            "consulted": [{"reflection": r, "stance": "support"} for r in theme[k % 4 : k % 4 + 3]],
            "created_at": fsrs_math.format_ts(DEMO_NOW),
        }
        for s, count in enumerate(counts)
        for k in range(count)
    ]
    with Project.locate(root, write_agent=True) as project:
        intake.submit(project, proposals, source="bench", now=DEMO_NOW)


def first_votes(root: Path) -> int:
    """Turn the two-person rule on for ``note`` and record ``bench-first``'s accept on
    every pending proposal (one transaction, through the session's door); how many."""
    from brainview.config import load
    from brainview.services.session import Session
    from brainview.store.discovery import discover

    rules = '["invalidate", "policy", "prune", "graduate", "note"]'
    (root / ".spikuit" / "brainview.toml").write_text(
        f"[two_person]\nenabled = true\nrules = {rules}\n"
    )
    paths = discover(root)
    conn = sqlite3.connect(f"file:{paths.agent_db}?mode=ro", uri=True)
    try:
        ids = [
            p
            for (p,) in conn.execute(
                "SELECT id FROM brainview_proposal WHERE status = 'pending' AND id LIKE 'team-%'"
            )
        ]
    finally:
        conn.close()
    cfg = load(paths.config_path)
    with Session.start(paths, config=cfg, clock=lambda: DEMO_NOW, decider="bench-first") as s:
        held = s.decide(ids, "accept")
    assert all(r.apply_state == "held" for r in held) and len(held) == len(ids)
    return len(held)


def add_users(root: Path, sessions: int) -> dict[str, str]:
    """One reviewer per session (``bench-SS``) with a bearer token; name → token."""
    tokens: dict[str, str] = {}
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    for s in range(sessions):
        name = f"bench-{s:02d}"
        cli = [sys.executable, "-m", "brainview", "users"]
        subprocess.run(
            [*cli, "add", name, "--role", "reviewer", "--password-stdin", "-C", str(root)],
            input=f"correct horse battery {s}\n",
            text=True,
            check=True,
            capture_output=True,
            env=env,
        )
        out = subprocess.run(
            [*cli, "token", name, "--json", "-C", str(root)],
            text=True,
            check=True,
            capture_output=True,
            env=env,
        ).stdout
        tokens[name] = json.loads(out)["token"]
    return tokens


@dataclass
class Client:
    """One signed-in person's websocket and what their console has drawn."""

    name: str
    token: str
    prefix: str
    screen: bytearray = field(default_factory=bytearray)
    dropped: int = 0
    """Bytes cut from the front of ``screen`` (it keeps the last 200 kB)."""
    latencies: list[float] = field(default_factory=list)

    def mark(self) -> int:
        """A position in the stream: :meth:`since` reads what was drawn after it."""
        return self.dropped + len(self.screen)

    def since(self, mark: int) -> str:
        """What the console drew since ``mark``, escape sequences removed."""
        chunk = bytes(self.screen[max(0, mark - self.dropped) :])
        return ANSI.sub(b"", chunk).decode("utf-8", "replace")


class Decisions:
    """Decisions per decider, read every ``POLL_S`` by one poller for every client (one
    read-only connection of this process): watching costs the same for one session as
    for ten."""

    POLL_S = 0.002

    def __init__(self, db: Path) -> None:
        self.conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        self.counts: dict[str, int] = {}
        self.seen_at: dict[str, float] = {}
        """Decider → when the poller saw their count grow last (``perf_counter``)."""

    def read(self) -> None:
        rows = self.conn.execute("SELECT decider, count(*) FROM brainview_decision GROUP BY 1")
        now = time.perf_counter()
        for name, n in rows:
            if n != self.counts.get(name):
                self.counts[name] = n
                self.seen_at[name] = now

    async def run(self) -> None:
        while True:
            self.read()
            await asyncio.sleep(self.POLL_S)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Phase:
    """Where the CPU went while the sessions decided: the server (relay), the consoles
    (one process each) and this process (clients and the poller), with the load."""

    server: int
    n: int
    ready: int = 0
    finished: int = 0
    go: asyncio.Event = field(default_factory=asyncio.Event)
    over: asyncio.Event = field(default_factory=asyncio.Event)
    start: dict[str, float] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)

    def sample(self) -> dict[str, float]:
        consoles = Path(f"/proc/{self.server}/task/{self.server}/children").read_text().split()
        mine = os.times()
        return {
            "wall": time.perf_counter(),
            "server": cpu_seconds(self.server),
            "consoles": sum(cpu_seconds(int(c)) for c in consoles),
            "bench": mine.user + mine.system,
        }

    async def all_ready(self) -> None:
        """Every session set up: the timed part starts for all at once."""
        self.ready += 1
        if self.ready == self.n:
            self.start = self.sample()
            self.go.set()
        await self.go.wait()

    async def all_done(self) -> None:
        """Every session decided: CPU read while the consoles still run."""
        self.finished += 1
        if self.finished == self.n:
            end = self.sample()
            self.cpu = {k: round(end[k] - self.start[k], 2) for k in end}
            self.cpu["load1"] = round(os.getloadavg()[0], 2)
            self.over.set()
        await self.over.wait()


async def _until(predicate, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        await asyncio.sleep(0.002)


async def _drawn(client: Client, mark: int, pattern: str, what: str) -> None:
    """Wait until the console drew ``pattern`` (a regex) after ``mark`` (set-up, not
    timed)."""
    try:
        await _until(lambda: re.search(pattern, client.since(mark)), READY_S, what)
    except TimeoutError:
        tail = client.since(mark)[-600:]
        raise TimeoutError(f"{client.name}: {what}; it drew: {tail!r}") from None


async def _own_queue(ws, client: Client, decisions: int) -> None:  # type: ignore[no-untyped-def]
    """Filter the queue to this client's proposals (``/``, the prefix, Enter) and make
    sure the queue has the focus again before any ``a``.  The box takes the focus only
    after ``/`` was handled, so the prefix's first letter (``t``: bound to nothing in
    triage) is typed once the box shows, and the rest once the filter ran on it; after
    Enter, a down arrow (nothing in the box) moves the queue's cursor once the queue has
    the focus again: the proposal pane then shows another of its proposals."""
    first, rest = client.prefix[0], client.prefix[1:]
    mark = client.mark()
    await ws.send_str(json.dumps(["stdin", "/"]))
    await _drawn(client, mark, "filter: kind, id", "no filter box")
    await ws.send_str(json.dumps(["stdin", first]))
    # the queue's title turns to "N of M …" once the filter ran on the box's text
    await _drawn(client, mark, r"\d+ of \d+ ·", "the box did not take the key")
    await ws.send_str(json.dumps(["stdin", rest]))
    await _drawn(client, mark, rf"\b{decisions} of \d+ ·", "the filter did not run")
    shown = re.compile(rf"{re.escape(client.prefix)}\d+(?= · )")
    await _drawn(client, mark, shown.pattern, "no proposal of its own shown")
    here = shown.findall(client.since(mark))[-1]
    await ws.send_str(json.dumps(["stdin", "\r"]))
    for _ in range(int(READY_S)):
        mark = client.mark()
        await ws.send_str(json.dumps(["stdin", "\x1b[B"]))
        with contextlib.suppress(TimeoutError):
            await _until(lambda m=mark: set(shown.findall(client.since(m))) - {here}, 1.0, "")
            # a move key ends "typing on" after enter (the filter takes printable keys
            # back until the maintainer moves; an arrow, handled by the table, does not
            # end it): ``k`` goes to the queue, and the next ``a`` (keys are handled in
            # order) decides.  Not waited for: a terminal redraws only changed cells.
            await ws.send_str(json.dumps(["stdin", "k"]))
            return
    raise TimeoutError(f"{client.name}: the queue never took the focus back")


async def run_client(
    url: str, client: Client, seen: Decisions, phase: Phase, decisions: int, think: float
) -> None:
    import aiohttp

    headers = {"Authorization": f"Bearer {client.token}"}
    ws_url = url.replace("http://", "ws://").rstrip("/") + "/ws?width=120&height=40"
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(ws_url, headers=headers, max_msg_size=0) as ws,
    ):

        async def pump() -> None:
            async for message in ws:
                if message.type == aiohttp.WSMsgType.BINARY:
                    client.screen.extend(message.data)
                    cut = max(0, len(client.screen) - 200_000)
                    del client.screen[:cut]
                    client.dropped += cut

        reader = asyncio.create_task(pump())
        try:
            await _drawn(client, 0, r"\d+ pending", "no queue")
            await _own_queue(ws, client, decisions)
            await phase.all_ready()
            rng = random.Random(client.name)
            await asyncio.sleep(rng.uniform(0, think))  # the sessions do not press in step
            for k in range(decisions):
                before = seen.counts.get(client.name, 0)
                assert before == k, f"{client.name}: {before} decisions before press {k + 1}"
                mark = client.mark()
                t = time.perf_counter()
                await ws.send_str(json.dumps(["stdin", "a"]))
                try:
                    await _until(
                        lambda b=before: seen.counts.get(client.name, 0) > b,
                        DECIDE_TIMEOUT_S,
                        "",
                    )
                except TimeoutError:
                    drawn = client.since(mark)
                    said = sorted(set(SAID.findall(drawn)))
                    raise TimeoutError(
                        f"{client.name}: decision {k + 1} never landed; it said {said!r}; "
                        f"it drew last: {drawn[-400:]!r}"
                    ) from None
                client.latencies.append(seen.seen_at[client.name] - t)
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            await phase.all_done()
        finally:
            reader.cancel()


def serve(root: Path) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "brainview", "serve", str(root), "--screen", "triage"]
    proc = subprocess.Popen(
        [*cmd, "--port", "0", "--max-sessions", "32"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("Serving the console at "):
        proc.kill()
        err = proc.stderr.read() if proc.stderr else ""
        raise RuntimeError(f"serve did not start: {line}{err}")
    return proc, line.split(" at ", 1)[1].split()[0]


def measure(
    root: Path, tokens: dict[str, str], n: int, decisions: int, think: float
) -> tuple[list[float], dict[str, float]]:
    """Every decision's latency with ``n`` sessions deciding at once, and the CPU
    seconds spent meanwhile (see :class:`Phase`)."""
    proc, url = serve(root)
    db = root / ".spikuit" / "agent" / "circuit.db"
    names = sorted(tokens)[:n]
    clients = [Client(name, tokens[name], f"team-{int(name[-2:]):02d}-") for name in names]
    try:

        async def everyone() -> dict[str, float]:
            phase = Phase(proc.pid, n)
            seen = Decisions(db)
            poller = asyncio.create_task(seen.run())
            try:
                await asyncio.gather(
                    *(run_client(url, c, seen, phase, decisions, think) for c in clients)
                )
            finally:
                poller.cancel()
                seen.conn.close()
            return phase.cpu

        cpu = asyncio.run(everyone())
    finally:
        proc.send_signal(2)
        proc.wait(timeout=30)
    return [x for c in clients for x in c.latencies], cpu


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=10)
    ap.add_argument("--decisions", type=int, default=12)
    ap.add_argument(
        "--single-decisions",
        type=int,
        default=36,
        help="decisions of the one-session reference (its p95 needs more than 12)",
    )
    ap.add_argument(
        "--think",
        type=float,
        default=THINK_S,
        help=f"mean seconds between one person's presses (default {THINK_S:g})",
    )
    ap.add_argument(
        "--stress",
        action="store_true",
        help="report only: a pace no team keeps (say --think 1), no target to meet",
    )
    ap.add_argument(
        "--rules",
        choices=["on", "off"],
        default="on",
        help="the two-person rule on note proposals, each holding a first accept (default on)",
    )
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-team-"))
    try:
        root = base / "proj"
        # Each session's own proposals: one person alone, then the whole team.
        build(root, [args.decisions] * args.sessions + [args.single_decisions])
        tokens = add_users(root, args.sessions + 1)
        held = first_votes(root) if args.rules == "on" else 0
        solo_name = f"bench-{args.sessions:02d}"
        single, single_cpu = measure(
            root, {solo_name: tokens[solo_name]}, 1, args.single_decisions, args.think
        )
        team = {k: v for k, v in tokens.items() if k != solo_name}
        many, team_cpu = measure(root, team, args.sessions, args.decisions, args.think)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    one_p95, ten_p95 = p95(single), p95(many)
    out = {
        "bench": "team",
        "sessions": args.sessions,
        "decisions_each": args.decisions,
        "n_single": len(single),
        "think_s": args.think,
        "two_person": args.rules,
        "first_votes": held,
        "single_ms": {"median": statistics.median(single) * 1e3, "p95": one_p95 * 1e3},
        "team_ms": {"median": statistics.median(many) * 1e3, "p95": ten_p95 * 1e3},
        "n_team": len(many),
        "cpu_s_single": single_cpu,
        "cpu_s_team": team_cpu,
        "cpu_ms_per_decision_team": {
            k: round(team_cpu[k] * 1e3 / len(many)) for k in ("server", "consoles", "bench")
        },
        "ratio_p95": round(ten_p95 / one_p95, 2),
        "target": None if args.stress else TARGET,
        "met": None if args.stress else ten_p95 <= TARGET * one_p95,
    }
    print(json.dumps(out))
    return 0 if out["met"] is not False else 1


if __name__ == "__main__":
    sys.exit(main())
