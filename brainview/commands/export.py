"""``brainview export DATASET``: proposals, decisions, reflections or communities as JSON,
JSON Lines or CSV, streamed in batches (memory stays bounded on big brains).

* ``--out FILE`` is written atomically (:mod:`brainview.store.safe_files`): a temporary
  file in the same directory, then renamed to FILE; on any error FILE is untouched and
  the temporary file removed.  FILE must be a regular file or nothing yet: a device,
  FIFO, directory or symbolic link is refused, an existing file is not overwritten
  unless ``--force``.  ``--out -`` is stdout.
* Values are the data verbatim: CSV cells hold raw text (lists and objects as compact
  JSON; ``null`` as an empty cell), JSON is UTF-8.  Only when stdout is a **terminal**
  is anything altered: JSON is ASCII-escaped and CSV control characters are shown as
  visible symbols (``␛``, ``⟨U+009B⟩``), with a note on stderr — pipe or use ``--out``
  for the exact bytes.  Spreadsheet programs may treat cells starting with ``=``, ``+``,
  ``-`` or ``@`` as formulas; brainview does not rewrite them.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from brainview.commands.common import (
    load_config,
    note,
    now,
    open_project,
    parse_when,
    stdout_is_terminal,
)
from brainview.errors import UsageError
from brainview.store.safe_files import atomic_write

if TYPE_CHECKING:
    import argparse

COLUMNS: dict[str, tuple[str, ...]] = {
    "proposals": (
        "id", "skill", "kind", "status", "summary", "rationale", "params", "created_at",
        "received_at", "source", "runtime", "n_consulted", "consulted", "retrieved",
    ),
    "decisions": (
        "decision_id", "proposal_id", "kind", "skill", "verdict", "reason", "decider",
        "decided_at", "seconds_on_screen", "new_reflection_id", "apply_state", "undone_at",
        "undone_by", "grades",
    ),
    "reflections": (
        "id", "skill", "type", "status", "state", "created_at", "updated_at", "retired_at",
        "stability", "difficulty", "retrievability", "last_review", "due", "spikes", "content",
    ),
    "communities": (
        "community", "label", "size", "skills", "mean_retrievability", "reviewed",
        "below_threshold", "strong", "miss", "policies", "spikuit_community",
    ),
}  # fmt: skip
"""Columns (CSV header order; JSON objects carry the same keys in the same order)."""


def _rows(args: argparse.Namespace, project: Any, conn: Any) -> Iterator[dict[str, Any]]:
    from brainview.services.readout import export as readout_export
    from brainview.services.readout import reflections as readout_reflections

    clock = now()
    since = parse_when(args.since, flag="--since", clock=clock) if args.since else None
    until = parse_when(args.until, flag="--until", clock=clock) if args.until else None
    if args.dataset == "proposals":
        return readout_export.iter_proposals(conn, since, until)
    if args.dataset == "decisions":
        return readout_export.iter_decisions(conn, since, until)
    if args.dataset == "communities":
        from brainview.commands.communities import community_dicts

        if since or until:
            raise UsageError("--since/--until do not apply to communities")
        threshold = float(load_config(args).reflections.pruning_threshold)
        rows, _total, _facts = community_dicts(
            project, clock, threshold=threshold, sort="size", limit=10**9
        )
        return iter(rows)
    return readout_reflections.iter_reflections(conn, project.agent.era, clock, since, until)


def _cell(value: Any, terminal: bool) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, dict | list):
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    else:
        text = str(value)
    if terminal:
        from brainview.core.safe_text import clean

        return clean(text, multiline=True)
    return text


def write_rows(
    rows: Iterator[dict[str, Any]], fmt: str, cols: tuple[str, ...], out: IO[str], terminal: bool
) -> int:
    """Stream rows in a format; returns how many were written."""
    n = 0
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(cols)
        for row in rows:
            writer.writerow([_cell(row.get(c), terminal) for c in cols])
            n += 1
        return n
    if fmt == "json":
        out.write("[")
    for row in rows:
        item = json.dumps({c: row.get(c) for c in cols}, ensure_ascii=terminal)
        if fmt == "json":
            out.write(("\n" if n == 0 else ",\n") + item)
        else:
            out.write(item + "\n")
        n += 1
    if fmt == "json":
        out.write("\n]\n" if n else "]\n")
    return n


def export(args: argparse.Namespace) -> int:
    """Write the dataset to stdout or ``--out`` FILE (``-``: stdout)."""
    cols = COLUMNS[args.dataset]
    out = None if args.out in (None, "-") else Path(args.out)
    with open_project(args) as project, project.require_agent().read() as conn:
        if out is not None:  # the target is checked before any row is computed
            with atomic_write(out, "--out", force=args.force) as fh:
                n = write_rows(_rows(args, project, conn), args.format, cols, fh, terminal=False)
            note(f"exported {n} {args.dataset} to {out}")
            return 0
        rows = _rows(args, project, conn)
        terminal = stdout_is_terminal()
        if terminal and args.format == "csv":
            note("stdout is a terminal: control characters are shown as symbols (use --out)")
        write_rows(rows, args.format, cols, sys.stdout, terminal=terminal)
        sys.stdout.flush()
    return 0
