"""Editing ``.learnings/`` files as bytes: move one entry's line, touch nothing else.

Pure.  A move removes the entry's line from its file and appends it — the same bytes,
with the target file's line ending — to another; every other line of both files stays
byte-identical.  The only other byte that may change is a missing final newline of the
target, added so the appended line starts a line of its own.

A block entry (``## [LRN-…]``) is moved the way its skill moves it: it stays in its
file, its ``**Status**:`` line takes the new status (followed by a marker line such as
``**Promoted**: AGENTS.md``), and what the target should say (the block's summary as a
rule, an invalidation record) is appended to the target.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from brainview.core.learnings_parse import compare_text, decode, parse, split_lines
from brainview.core.safe_text import one_line

Files = dict[str, bytes | None]
"""Path relative to the root → bytes (``None``: the file does not exist)."""


@dataclass(frozen=True)
class Move:
    """Move the line ``raw`` (near line ``line`` of ``source``) to the end of
    ``target``, followed by ``note`` lines (e.g. an invalidation's reason)."""

    source: str
    line: int
    raw: bytes
    target: str
    note: tuple[str, ...] = ()
    status: str | None = None
    """A block entry: the status its ``**Status**:`` line takes (it stays in its file)."""
    marker: tuple[str, ...] = ()
    """A block entry: lines inserted after its status line (``**Promoted**: AGENTS.md``)."""
    carry: tuple[bytes, ...] = ()
    """A block entry: the lines appended to the target (instead of the entry's line)."""


class Stale(Exception):
    """The entry is no longer where the move expects it."""


def ending_of(data: bytes | None) -> bytes:
    """The line ending a file uses (its first line's; ``\\n`` for a new file)."""
    if not data:
        return b"\n"
    first = data.split(b"\n", 1)[0]
    return b"\r\n" if first.endswith(b"\r") and b"\n" in data else b"\n"


def locate(lines: list[bytes], raw: bytes, line: int) -> int:
    """0-based index of the line holding ``raw``: at ``line`` if it is still there,
    else the occurrence nearest to it (:class:`Stale` when there is none)."""
    want = raw.rstrip(b"\r")
    found = [i for i, x in enumerate(lines) if x.rstrip(b"\n").rstrip(b"\r") == want]
    if not found:
        raise Stale(f"line {decode(raw)[:60]!r} is no longer in the file")
    return min(found, key=lambda i: (abs(i - (line - 1)), i))


def without_line(data: bytes, index: int) -> bytes:
    """``data`` with line ``index`` (0-based) removed."""
    lines = split_lines(data)
    return b"".join(lines[:index] + lines[index + 1 :])


def appended(data: bytes | None, new_lines: list[bytes]) -> bytes:
    """``data`` with ``new_lines`` (no endings) appended in the file's line ending."""
    end = ending_of(data)
    head = data or b""
    if head and not head.endswith(b"\n"):
        head += end
    return head + b"".join(x + end for x in new_lines)


def note_line(text: str) -> bytes:
    """An indented sub-bullet carrying ``text`` on one inert line."""
    return f"  - {one_line(text, 500)}".encode()


_STATUS_LINE = re.compile(rb"^(\*\*Status\*\*\s*:\s*)(.*?)(\r?\n?)$", re.IGNORECASE)


def with_status(data: bytes, index: int, status: str, marker: tuple[str, ...]) -> bytes:
    """``data`` with the block whose header is line ``index`` holding ``status`` on its
    ``**Status**:`` line (one is added after the header if it has none) and ``marker``
    lines after it; nothing else changes."""
    lines = split_lines(data)
    end = ending_of(data)
    at = None
    for j in range(index + 1, len(lines)):
        text = decode(lines[j])
        if text.startswith("## ") or text.strip() == "---":
            break
        if _STATUS_LINE.match(lines[j]):
            at = j
            break
    extra = [m.encode() + end for m in marker]
    if at is None:
        head = lines[index] if lines[index].endswith(b"\n") else lines[index] + end
        new = [head, f"**Status**: {status}".encode() + end, *extra]
        return b"".join(lines[:index] + new + lines[index + 1 :])
    m = _STATUS_LINE.match(lines[at])
    assert m is not None
    line_end = m.group(3) or (end if at + 1 < len(lines) or extra else b"")
    changed = m.group(1) + status.encode() + line_end
    return b"".join(lines[:at] + [changed, *extra] + lines[at + 1 :])


def block_rule(rel: str, data: bytes, index: int) -> bytes:
    """The line a block entry (header at line ``index``) leaves in its target: its
    summary as a bullet, naming the block it came from."""
    for e in parse(rel, data).entries:
        if e.line == index + 1 and e.block_id is not None:
            summary = compare_text(e)
            if summary.startswith(f"[{e.block_id}]"):
                return f"- {one_line(summary, 500)}".encode()
            return f"- {one_line(summary, 500)} ({e.block_id})".encode()
    raise Stale(f"line {index + 1} of {rel} is no longer a block entry")


def apply_moves(files: Files, moves: list[Move]) -> Files:
    """The new bytes of every file the moves change (others absent), in order."""
    out: Files = {}
    for mv in moves:
        src = out[mv.source] if mv.source in out else files.get(mv.source)
        if src is None:
            raise Stale(f"{mv.source} no longer exists")
        lines = split_lines(src)
        index = locate(lines, mv.raw, mv.line)
        if mv.target == mv.source:
            raise Stale("source and target are the same file")
        if mv.status is not None:
            out[mv.source] = with_status(src, index, mv.status, mv.marker)
            carried = list(mv.carry) or [block_rule(mv.source, src, index)]
        else:
            out[mv.source] = without_line(src, index)
            carried = [mv.raw.rstrip(b"\r")]
        dst = out[mv.target] if mv.target in out else files.get(mv.target)
        out[mv.target] = appended(dst, [*carried, *(note_line(n) for n in mv.note)])
    return out


def diff_lines(before: Files, after: Files) -> list[tuple[str, str, str]]:
    """A short diff: ``(file, "-"|"+", line)`` for each removed and added line."""
    rows: list[tuple[str, str, str]] = []
    for rel, new in after.items():
        old_lines = split_lines(before.get(rel) or b"")
        new_lines = split_lines(new or b"")
        strip = [x.rstrip(b"\n").rstrip(b"\r") for x in old_lines]
        fresh = [x.rstrip(b"\n").rstrip(b"\r") for x in new_lines]
        i = 0
        while i < min(len(strip), len(fresh)) and strip[i] == fresh[i]:
            i += 1
        j = 0
        while j < min(len(strip), len(fresh)) - i and strip[-1 - j] == fresh[-1 - j]:
            j += 1
        for x in strip[i : len(strip) - j]:
            rows.append((rel, "-", decode(x)))
        for x in fresh[i : len(fresh) - j]:
            rows.append((rel, "+", decode(x)))
        if before.get(rel) is None:
            rows.insert(len(rows) - (len(fresh) - i - j), (rel, "+", "(new file)"))
    return rows
