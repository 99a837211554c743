"""``brainview propose FILE|-``: the curator's intake from the command line.

The input is checked *before* it is parsed, so hostile files cost little and fail with
one line naming the line or field (exit 4), and nothing is written:

* larger than :data:`MAX_INPUT_BYTES` (refused from ``stat`` for files, after reading at
  most one byte more for stdin);
* not UTF-8, or holding a NUL byte;
* nested deeper than :data:`MAX_DEPTH` (a vectorised bracket-depth scan that skips
  strings, run before ``json.loads`` so the parser never recurses deeply);
* not JSON: one value (an object or an array of objects) or JSON Lines (one object per
  line); ``NaN``/``Infinity``, numbers that overflow to infinity (``1e400``, ``-1e400``),
  integers of more than 20 digits (:func:`brainview.core.json_strict.loads_input`) and
  lone-surrogate escapes are refused.

Then the batch goes through :func:`brainview.services.intake.submit` — exactly the rules
the app uses — as one all-or-nothing transaction (``--dry-run`` stops after validating).
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import TYPE_CHECKING, Any

from brainview.commands.common import emit_json, emit_lines, now, session_of
from brainview.errors import InvalidInputError, NotFoundError, UsageError

if TYPE_CHECKING:
    import argparse

MAX_INPUT_BYTES = 50 * 1024 * 1024
MAX_DEPTH = 32
_STRINGS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_CHUNK = 4 * 1024 * 1024
_LONE_SURROGATE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}")
_INDEX = re.compile(r"^proposal\[(\d+)\]")


def schema_text() -> str:
    """The JSON Schema shipped in the package (``brainview/schema/proposal.schema.json``)."""
    from importlib.resources import files

    return files("brainview").joinpath("schema", "proposal.schema.json").read_text("utf-8")


def read_input(source: str) -> bytes:
    """The raw bytes of FILE (or stdin for ``-``), refusing oversized input up front."""
    limit_mb = MAX_INPUT_BYTES // (1024 * 1024)
    if source == "-":
        data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        if len(data) > MAX_INPUT_BYTES:
            raise InvalidInputError(f"input: stdin is larger than the {limit_mb} MB limit")
        return data
    from brainview.store.connect import refuse_brain_path

    refuse_brain_path(source, "input")
    try:
        size = os.stat(source).st_size
        if size > MAX_INPUT_BYTES:
            raise InvalidInputError(
                f"input: {source} is {size} bytes, larger than the {limit_mb} MB limit"
            )
        with open(source, "rb") as fh:
            data = fh.read(MAX_INPUT_BYTES + 1)
    except FileNotFoundError:
        raise NotFoundError(f"no such file: {source}") from None
    except IsADirectoryError:
        raise InvalidInputError(f"input: {source} is a directory") from None
    except OSError as err:
        raise InvalidInputError(f"input: cannot read {source} ({err.strerror})") from None
    if len(data) > MAX_INPUT_BYTES:  # grew while we looked, or a special file
        raise InvalidInputError(f"input: {source} is larger than the {limit_mb} MB limit")
    return data


def _line_of(data: bytes | str, offset: int) -> int:
    if isinstance(data, bytes):
        return data.count(b"\n", 0, offset) + 1
    return data.count("\n", 0, offset) + 1


def decode(data: bytes) -> str:
    """UTF-8 text without NUL bytes (a UTF-8 BOM is dropped)."""
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InvalidInputError(f"input line {_line_of(data, nul)}: NUL byte (not JSON text)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = _line_of(data, err.start)
        raise InvalidInputError(
            f"input line {line}: invalid UTF-8 (byte 0x{data[err.start]:02x} at offset {err.start})"
        ) from None
    return text.removeprefix("\ufeff")


def check_depth(data: bytes) -> None:
    """Refuse nesting deeper than :data:`MAX_DEPTH`, outside strings, before parsing.

    Works on the UTF-8 bytes (quotes, backslashes and brackets are ASCII, never part of
    a multi-byte character).  Fast path: few brackets in all → fine.  Otherwise strings
    are cut out (JSON strings hold no raw newline, so line numbers survive) and the
    running depth is a vectorised cumulative sum, a chunk at a time: ~0.2 s for 50 MB
    of brackets, memory bounded.
    """
    if data.count(b"[") + data.count(b"{") <= MAX_DEPTH:
        return
    import numpy as np

    code = np.frombuffer(_STRINGS.sub(b"", data), dtype=np.uint8)
    running = 0
    for start in range(0, len(code), _CHUNK):
        chunk = code[start : start + _CHUNK]
        step = (chunk == ord("[")).astype(np.int64)
        step += chunk == ord("{")
        step -= chunk == ord("]")
        step -= chunk == ord("}")
        depth = np.cumsum(step) + running
        over = np.flatnonzero(depth > MAX_DEPTH)
        if over.size:
            line = code[: start + int(over[0])].tobytes().count(b"\n") + 1
            raise InvalidInputError(
                f"input line {line}: JSON nested deeper than {MAX_DEPTH} levels"
            )
        running = int(depth[-1])


def strict_loads(text: str) -> Any:
    """``json.loads`` refusing what is not strict JSON or not a finite, bounded number."""
    from brainview.core.json_strict import loads_input

    return loads_input(text)


def _loads(text: str, line: int | None = None) -> Any:
    try:
        return strict_loads(text)
    except json.JSONDecodeError as err:
        at = (line or 0) + err.lineno if line is not None else err.lineno
        raise InvalidInputError(f"input line {at} column {err.colno}: {err.msg}") from None
    except (ValueError, RecursionError) as err:
        where = f"input line {line + 1}" if line is not None else "input"
        raise InvalidInputError(f"{where}: {err}") from None


def parse(data: bytes) -> tuple[Any, list[int] | None]:
    """JSON value or JSON Lines; for JSON Lines also each item's line number."""
    text = decode(data)
    if not text.strip():
        raise InvalidInputError("input: empty (expected a JSON object, array or JSON Lines)")
    check_depth(data)
    try:
        value, lines = strict_loads(text), None
    except json.JSONDecodeError as err:
        if err.msg != "Extra data":
            raise InvalidInputError(
                f"input line {err.lineno} column {err.colno}: {err.msg}"
            ) from None
        items, lines = [], []
        for i, line in enumerate(text.splitlines()):
            if line.strip():
                items.append(_loads(line, i))
                lines.append(i + 1)
        value = items
    except (ValueError, RecursionError) as err:
        raise InvalidInputError(f"input: {err}") from None
    if _LONE_SURROGATE.search(text):
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            msg = "input: a \\u escape names a lone surrogate (not text)"
            raise InvalidInputError(msg) from None
    return value, lines


def _with_line(err: InvalidInputError, lines: list[int] | None) -> InvalidInputError:
    match = _INDEX.match(err.message)
    if lines is None or match is None or int(match.group(1)) >= len(lines):
        return err
    return InvalidInputError(f"{err.message} (input line {lines[int(match.group(1))]})")


def propose(args: argparse.Namespace) -> int:
    """Validate and queue (or with ``--dry-run`` only validate) a batch of proposals."""
    if args.schema:
        sys.stdout.write(schema_text())
        return 0
    if args.file is None:
        raise UsageError("brainview propose: give FILE (or - for stdin), or --schema")
    value, lines = parse(read_input(args.file))  # before any heavy import
    from brainview.services import intake

    clock = now()
    if args.from_spkt_plan:
        return _plan(args, value, clock)
    try:
        intake.parse_batch(value, clock)  # shape errors need no brain: report them first
        with session_of(args) as session:
            batch = session.propose(
                value, source=args.source, dry_run=args.dry_run, recall=args.recall
            )
    except InvalidInputError as err:
        raise _with_line(err, lines) from None
    return _report(args, batch)


def _plan(args: argparse.Namespace, value: Any, clock: Any) -> int:
    """Import a ``spkt consolidate --json`` plan (one proposal per item, all or none)."""

    if not isinstance(value, dict):
        raise InvalidInputError("plan: must be one JSON object (spkt consolidate --json)")
    with session_of(args) as session:
        batch = session.import_spkt_plan(value, dry_run=args.dry_run)
    return _report(args, batch)


def _report(args: argparse.Namespace, batch: list[Any]) -> int:
    from brainview.services.intake.proposing import receipt

    done = receipt(batch, dry_run=bool(args.dry_run))
    rows = done["proposals"]
    if args.json:
        emit_json(done)
        return 0
    from brainview.core.safe_text import one_line

    verb = "valid (dry run, nothing written)" if args.dry_run else "queued"
    out = [f"{verb}: {len(rows)} proposal(s)"]
    out += [f"  {one_line(r['id'], 40)}  {r['kind']}  {one_line(r['summary'], 60)}" for r in rows]
    emit_lines(out)
    return 0
