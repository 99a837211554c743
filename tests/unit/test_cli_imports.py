"""The CLI's queue commands do not load numpy: listing, deciding and undoing read
timestamps and cards, never arrays, and every ``brainview`` process paid ~0.1–0.2 s
for numpy through ``core.fsrs_math`` and the look-alike MinHash.  The commands that do
vectorise (``stats``, ``reflect list``) still load it, when they run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import json, sys
from brainview.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "numpy": "numpy" in sys.modules,
                  "outcome": "brainview.services.outcome" in sys.modules}), file=sys.stderr)
"""


def _loaded(*argv: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *argv], capture_output=True, text=True, check=False
    )
    return json.loads(done.stderr.strip().splitlines()[-1])


def _run(*argv: str) -> dict[str, object]:
    found = _loaded(*argv)
    return {"code": found["code"], "numpy": found["numpy"]}


def test_listing_deciding_and_undoing_load_no_numpy(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    pending = [p for p in info.proposal_ids if p not in set(info.stale_proposal_ids)]
    assert _run("proposals", "list", "-C", str(root), "--json") == {"code": 0, "numpy": False}
    assert _run("proposals", "accept", pending[0], "-C", str(root), "--decider", "t") == {
        "code": 0,
        "numpy": False,
    }
    assert _run("proposals", "undo", "--last", "-C", str(root), "--decider", "t") == {
        "code": 0,
        "numpy": False,
    }


def test_the_vectorised_commands_still_load_it(demo) -> None:  # type: ignore[no-untyped-def]
    """``stats`` vectorises (numpy), but reads the outcome counts without importing the
    package that records outcomes (and with it the decision path)."""
    root: Path = demo[0]
    found = _loaded("stats", str(root), "--json")
    assert found == {"code": 0, "numpy": True, "outcome": False}
