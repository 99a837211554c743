"""``brainview --help`` vs ``python -c pass`` (target ≤ 1.3×), interleaved medians.

Three sides, each a fresh process:

* ``python -c pass`` — the reference;
* ``brainview --help`` — the console script a user types (the target's subject);
* ``python -m brainview --help`` — the same through ``runpy`` (which alone costs a few
  milliseconds: ``importlib.util``, ``contextlib``…), for information.

By default every side runs with a bytecode cache, as an installed package does: this
environment sets ``PYTHONDONTWRITEBYTECODE=1``, so the bench points
``PYTHONPYCACHEPREFIX`` at ``bench/.cache/pycache`` (the source tree stays clean) and
warms it first.  ``--no-bytecode`` measures the cold, compile-every-time case instead.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from common import installed_env, interleave, wall


def _env(bytecode: bool) -> dict[str, str]:
    env = installed_env(bytecode)
    env["COLUMNS"] = "100"  # a terminal wide enough for the pre-rendered help
    return env


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--no-bytecode", action="store_true", help="compile on every start")
    args = ap.parse_args()
    env = _env(not args.no_bytecode)
    script = Path(sys.executable).with_name("brainview")
    sides = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "brainview --help": [str(script), "--help"],
        "python -m brainview --help": [sys.executable, "-m", "brainview", "--help"],
    }
    for cmd in sides.values():  # warm the bytecode cache and the page cache
        subprocess.run(cmd, check=True, capture_output=True, env=env)
    res = interleave({k: wall(v, env=env) for k, v in sides.items()}, args.runs)
    base = res["python -c pass"]["median"]
    print(
        json.dumps(
            {
                "bench": "cli_help",
                "bytecode": not args.no_bytecode,
                "ratio": round(res["brainview --help"]["median"] / base, 2),
                "ratio_python_m": round(res["python -m brainview --help"]["median"] / base, 2),
                "target": 1.3,
                **res,
            }
        )
    )


if __name__ == "__main__":
    main()
