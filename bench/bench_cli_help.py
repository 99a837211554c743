"""``brainview --help`` vs ``python -c pass`` (target ≤ 1.3×), interleaved medians."""

from __future__ import annotations

import argparse
import json
import sys

from common import interleave, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    res = interleave(
        {
            "python -c pass": wall([sys.executable, "-c", "pass"]),
            "brainview --help": wall([sys.executable, "-m", "brainview", "--help"]),
        },
        args.runs,
    )
    ratio = res["brainview --help"]["median"] / res["python -c pass"]["median"]
    print(json.dumps({"bench": "cli_help", "ratio": round(ratio, 2), "target": 1.3, **res}))


if __name__ == "__main__":
    main()
