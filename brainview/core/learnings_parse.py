"""Reading a self-improving agent's ``.learnings/`` Markdown: which lines are entries.

Pure: bytes in, entries out.  A file is cut into lines at ``\\n`` only (``\\r\\n`` keeps
its ``\\r``), so every line is written back byte for byte (:mod:`~.learnings_edit`).

Two entry shapes are recognised (``docs/learnings.md`` lists the public layouts):

* a **line entry**: a top-level bullet, ``- [YYYY-MM-DD] what → instead`` (the date
  and the arrow are optional; ``->``/``=>`` count as arrows), possibly carrying
  ``Status: pending``, ``Priority: high``, ``(used 15x)``, ``(confirmed 2026-01)``;
* a **block entry**: ``## [LRN-YYYYMMDD-XXX] category`` followed by ``**Priority**:``,
  ``**Status**:`` and ``### Summary`` (a feature request: ``### Requested Capability``)
  lines, up to the next ``## `` heading or ``---``; its metadata may name a
  ``Pattern-Key:`` (the skill's key for a recurring lesson) and ``See Also:`` entries.

Everything else (front matter, headings, prose, fenced code, indented sub-bullets,
undecodable bytes) is free-form: kept as is, never imported.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from brainview.core.learnings_block_meta import PRIORITY as _PRIORITY
from brainview.core.learnings_block_meta import STATUS as _STATUS
from brainview.core.learnings_block_meta import read_meta

HOT, WARM, COLD = "HOT", "WARM", "COLD"
GRADUATED = "GRADUATED"
TIERS = (HOT, WARM, COLD)
HOT_FILES = ("HOT.md", "memory.md")
"""The HOT file's names: ``.learnings/HOT.md``, or ``memory.md`` in ``~/self-improving/``."""
SKIPPED_FILES = frozenset({"index.md", "README.md"})
MAX_CONTENT = 20_000
"""Characters of an entry kept as the reflection's text (the file keeps every byte)."""

_BULLET = re.compile(r"^[-*+]\s+(?P<body>\S.*)$")
_DATE = re.compile(r"^\[(?P<d>\d{4}-\d{2}-\d{2})(?:[ T][0-9:]+)?\]\s*(?P<rest>.*)$")
_USED = re.compile(r"\(used\s+(\d{1,6})\s*x\)", re.IGNORECASE)
_HINT_DATE = re.compile(r"\((?:confirmed|corrected|added|seen)\s+(\d{4}-\d{2}(?:-\d{2})?)\)", re.I)
_BLOCK = re.compile(r"^##\s+\[(?P<id>[A-Z]{2,8}-(?P<ymd>\d{8})-[A-Za-z0-9]+)\]\s*(?P<cat>.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class Entry:
    """One lesson found in a file."""

    file: str
    """Path relative to the ``.learnings`` root, ``/``-separated."""
    line: int
    """1-based number of the entry's (first) line."""
    raw: bytes
    """The entry's first line exactly as stored, without its line ending."""
    text: str
    """What the lesson says (decoded; the whole block for a block entry)."""
    date: str | None
    status: str | None = None
    priority: str | None = None
    used: int = 0
    block_id: str | None = None
    span: int = 1
    """Lines the entry occupies (a block: its header to the line before the next)."""
    pattern_key: str | None = None
    """A block's ``Pattern-Key:`` (the skill's stable key for a recurring lesson)."""
    see_also: tuple[str, ...] = ()
    """Block ids a block names in ``See Also:``."""
    last_seen: str | None = None
    """A block's ``Last-Seen:`` date (the skill's, with ``Recurrence-Count:`` in
    :attr:`used`)."""

    @property
    def key_text(self) -> bytes:
        return self.raw.rstrip(b"\r")


@dataclass
class Parsed:
    """A file's lines (with their endings) and the entries among them."""

    file: str
    lines: list[bytes]
    entries: list[Entry] = field(default_factory=list)


def split_lines(data: bytes) -> list[bytes]:
    """The lines of ``data`` with their ``\\n`` kept; ``b"".join`` gives ``data`` back."""
    if not data:
        return []
    parts = data.split(b"\n")
    out = [p + b"\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def decode(line: bytes) -> str:
    """A line as text: undecodable bytes become U+FFFD, the ending is dropped."""
    return line.rstrip(b"\n").rstrip(b"\r").decode("utf-8", errors="replace")


def classify(rel: str) -> tuple[str, str] | None:
    """``(skill, tier)`` of a file by its place in the tree (``None``: not read)."""
    parts = rel.split("/")
    if not rel.endswith(".md") or any(p.startswith(".") for p in parts):
        return None
    tier = WARM
    if parts[0] == "archive":
        tier, parts = COLD, parts[1:]
        if not parts:
            return None
    name = parts[-1]
    if len(parts) == 1 and name in SKIPPED_FILES:
        return None
    stem = name[:-3]
    if len(parts) == 1 and name in HOT_FILES:
        return "corrections", (HOT if tier == WARM else tier)
    if len(parts) >= 2 and parts[0] == "projects":
        return f"project:{'/'.join(parts[1:])[:-3]}", tier
    if len(parts) >= 2 and parts[0] == "domains":
        return f"domain:{'/'.join(parts[1:])[:-3]}", tier
    if tier == COLD and not stem[:1].isalpha():  # ``archive/2026-08.md``: a dated archive
        return ARCHIVE_SKILL, tier
    return stem.lower() or "learnings", tier


BLOCK_SKILLS = {"LRN": "learnings", "ERR": "errors", "FEAT": "feature_requests"}
"""The skill a block entry's id prefix names (used where its file names none)."""
ARCHIVE_SKILL = "archive"
"""The skill of a line in a dated archive file, which names no skill."""
DONE_STATUSES = frozenset({"resolved", "wont_fix"})
PROMOTED_STATUSES = frozenset({"promoted", "promoted_to_skill"})


def block_tier(status: str | None, file_tier: str) -> str:
    """A block entry's tier by the ``**Status**`` its skill writes: ``promoted`` /
    ``promoted_to_skill`` → GRADUATED (moved into project memory), ``resolved`` /
    ``wont_fix`` → COLD (done, kept for history), otherwise its file's tier."""
    if status in PROMOTED_STATUSES:
        return GRADUATED
    if status in DONE_STATUSES:
        return COLD
    return file_tier


def entry_kind(e: Entry, skill: str, tier: str) -> tuple[str, str]:
    """``(skill, tier)`` of an entry: its file's, except a block's tier follows its
    status and a block in a dated archive takes the skill its id names."""
    if e.block_id is None:
        return skill, tier
    if skill == ARCHIVE_SKILL:
        skill = BLOCK_SKILLS.get(e.block_id.split("-", 1)[0], skill)
    return skill, block_tier(e.status, tier)


def compare_text(e: Entry) -> str:
    """What an entry is compared by to find repeats: a block's summary (its metadata
    and boilerplate sections would make every block look alike), a line's text."""
    return e.text.split("\n", 1)[0] if e.block_id is not None else e.text


def home_file(skill: str) -> str:
    """Where an entry of ``skill`` lives when it is WARM (demotion's target)."""
    if skill.startswith("project:"):
        return f"projects/{skill[8:]}.md"
    if skill.startswith("domain:"):
        return f"domains/{skill[7:]}.md"
    named = {"errors": "ERRORS.md", "learnings": "LEARNINGS.md"}
    named["feature_requests"] = "FEATURE_REQUESTS.md"
    return named.get(skill, f"{skill}.md")


def _front_matter_end(lines: list[bytes]) -> int:
    """Index of the first line after a leading ``---`` front matter block (0: none)."""
    if not lines or lines[0].rstrip(b"\r\n") != b"---":
        return 0
    for i in range(1, len(lines)):
        if lines[i].rstrip(b"\r\n") in (b"---", b"..."):
            return i + 1
    return 0


def parse(rel: str, data: bytes) -> Parsed:
    """Every entry of one file (``rel`` relative to the root)."""
    lines = split_lines(data)
    out = Parsed(rel, lines)
    i = _front_matter_end(lines)
    fenced = False
    while i < len(lines):
        text = decode(lines[i])
        if _FENCE.match(text):
            fenced = not fenced
            i += 1
            continue
        if fenced:
            i += 1
            continue
        block = _BLOCK.match(text)
        if block:
            end = _block_end(lines, i + 1)
            out.entries.append(_block_entry(rel, lines, i, end, block))
            i = end
            continue
        bullet = _BULLET.match(text)
        if bullet:
            out.entries.append(_line_entry(rel, lines[i], i + 1, bullet.group("body")))
        i += 1
    return out


def _block_end(lines: list[bytes], start: int) -> int:
    for j in range(start, len(lines)):
        text = decode(lines[j])
        if text.startswith("## ") or text.strip() == "---":
            return j
    return len(lines)


def _line_entry(rel: str, raw: bytes, number: int, body: str) -> Entry:
    date = None
    m = _DATE.match(body)
    if m:
        date, body = m.group("d"), m.group("rest")
    else:
        hint = _HINT_DATE.search(body)
        if hint and len(hint.group(1)) == 10:
            date = hint.group(1)
    status = _STATUS.search(body)
    prio = _PRIORITY.search(body)
    used = _USED.search(body)
    return Entry(
        file=rel,
        line=number,
        raw=raw.rstrip(b"\n"),
        text=body[:MAX_CONTENT],
        date=date,
        status=status.group(1).lower() if status else None,
        priority=prio.group(1).lower() if prio else None,
        used=int(used.group(1)) if used else 0,
    )


def _block_entry(rel: str, lines: list[bytes], start: int, end: int, m: re.Match[str]) -> Entry:
    ymd = m.group("ymd")
    body = [decode(x) for x in lines[start + 1 : end]]
    meta = read_meta(body, m.group("id"))
    head = f"[{m.group('id')}] {m.group('cat').strip()}".strip()
    rest = "\n".join(t for t in body if t.strip())
    text = f"{meta.summary}\n\n{head}\n{rest}" if meta.summary else f"{head}\n{rest}"
    return Entry(
        file=rel,
        line=start + 1,
        raw=lines[start].rstrip(b"\n"),
        text=text.strip()[:MAX_CONTENT],
        date=meta.logged or f"{ymd[:4]}-{ymd[4:6]}-{ymd[6:]}",
        status=meta.status,
        priority=meta.priority,
        block_id=m.group("id"),
        span=end - start,
        pattern_key=meta.pattern_key,
        see_also=meta.see_also,
        used=meta.used,
        last_seen=meta.last_seen,
    )


def block_id_of(raw: bytes) -> str | None:
    """The id in a block entry's header line (``None``: not a block header)."""
    m = _BLOCK.match(decode(raw))
    return m.group("id") if m else None


def entry_key(raw: bytes, nth: int) -> str:
    """Identity of an entry across imports: its line's bytes (wherever it moved) and
    which occurrence of those bytes in the tree it is."""
    digest = hashlib.blake2b(raw.rstrip(b"\r"), digest_size=12).hexdigest()
    return f"{digest}:{nth}"
