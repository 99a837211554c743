"""``brainview stats --json`` vs ``spkt stats --json``, and how it grows with size.

For the sizes in ``--spkt-sizes`` (default: the 20k-neuron brain, the target of
quality.md) the two commands run interleaved on the same user brain and the medians
are compared.  spkt writes to a brain it opens (migrations, WAL), so each spkt run
gets a fresh copy of the user brain (the copy is not timed).  For the other sizes in
``--sizes`` only brainview runs (``spkt stats`` loads the whole graph into networkx:
on the 1M-neuron brain that is minutes and gigabytes), to show the growth.

Both sides are the console scripts a user types, with a bytecode cache
(``common.installed_env``).  One JSON line per size.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import brain, copy_brain, installed_env, interleave

BIN = Path(sys.executable).parent
ENV = installed_env()


def ours(root: Path):  # type: ignore[no-untyped-def]
    """A side: one ``brainview stats ROOT --json``."""

    def run() -> float:
        t = time.perf_counter()
        subprocess.run(
            [str(BIN / "brainview"), "stats", str(root), "--json"],
            check=True,
            capture_output=True,
            env=ENV,
        )
        return time.perf_counter() - t

    return run


def theirs(root: Path, scratch: Path):  # type: ignore[no-untyped-def]
    """A side: one ``spkt stats --json --brain COPY`` on a fresh copy of the user brain."""

    def run() -> float:
        copy = scratch / "p"
        shutil.rmtree(copy, ignore_errors=True)
        copy_brain(root / ".spikuit" / "circuit.db", copy / ".spikuit" / "circuit.db")
        if (root / ".spikuit" / "config.toml").exists():
            (copy / ".spikuit" / "config.toml").write_text(
                (root / ".spikuit" / "config.toml").read_text()
            )
        t = time.perf_counter()
        subprocess.run(
            [str(BIN / "spkt"), "stats", "--json", "--brain", str(copy)],
            check=True,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            env=ENV,
        )
        return time.perf_counter() - t

    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="20k", help="comma-separated: demo,20k,large")
    ap.add_argument("--spkt-sizes", default="20k", help="sizes that also run spkt")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with_spkt = set(args.spkt_sizes.split(","))
    scratch = Path(tempfile.mkdtemp())
    try:
        for size in args.sizes.split(","):
            root = brain(size)
            sides = {"brainview stats --json": ours(root)}
            if size in with_spkt:
                sides = {"spkt stats --json": theirs(root, scratch), **sides}
            for side in sides.values():
                side()  # warm the bytecode and page caches (not timed)
            res = interleave(sides, args.runs)
            out: dict[str, object] = {"bench": "stats", "size": size, **res}
            if size in with_spkt:
                spkt = res["spkt stats --json"]["median"]
                out["speedup"] = round(spkt / res["brainview stats --json"]["median"], 2)
            print(json.dumps(out), flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
