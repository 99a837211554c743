"""Tombstones: the text of invalidated reflections, and near-duplicate detection so a
poisoned lesson cannot quietly be re-learnt.

Texts are compared as sets of word 2-shingles after normalisation (NFKC, case-folded,
``[user:…]`` references replaced by one placeholder so swapping the neurons a lesson
names does not hide it; markup tags, escape sequences and punctuation dropped).  Two texts are
near-duplicates when the Jaccard similarity of their shingle sets is at least
:data:`THRESHOLD`.

Lookups stay cheap with many tombstones: each tombstone stores a 64-value MinHash
signature cut into 16 bands of 4 (``brainview_tombstone_band``); a candidate must share
a band bucket (probability > 0.999 at Jaccard 0.8), then the exact Jaccard decides.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from sqlalchemy import Connection

from brainview.services.project import Project
from brainview.store import tombstone_reads
from brainview.store.bv_schema_lifecycle import BatchLog
from brainview.store.readmodel import table_exists

if TYPE_CHECKING:
    import numpy as np

THRESHOLD = 0.8
SHINGLE = 2
PERMUTATIONS = 64
BANDS = 16
ROWS = PERMUTATIONS // BANDS
_PRIME = (1 << 31) - 1
_REF = re.compile(r"\[user:[^\]\s]*\]", re.IGNORECASE)
# Terminal escape sequences and Rich/Textual markup tags are noise an attacker can vary.
_NOISE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC
    r"|\[/?[@$#a-zA-Z][^\[\]\n]{0,200}\]|\[/\]"  # markup tags
)
_WORD = re.compile(r"\w+")


def normalise(content: str | None) -> list[str]:
    """The words of ``content`` as compared (references folded into one token)."""
    if not content:
        return []
    s = _REF.sub(" userref ", unicodedata.normalize("NFKC", content))
    s = _NOISE.sub(" ", s).casefold()
    return _WORD.findall(s)


def shingles(content: str | None) -> frozenset[str]:
    """Word 2-shingles (a one-word text is one shingle)."""
    words = normalise(content)
    if len(words) < SHINGLE:
        return frozenset([" ".join(words)]) if words else frozenset()
    return frozenset(" ".join(words[i : i + SHINGLE]) for i in range(len(words) - SHINGLE + 1))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a ∩ b| / |a ∪ b| (0 for two empty sets)."""
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def _hash31(s: str) -> int:
    return int.from_bytes(hashlib.blake2b(s.encode(), digest_size=8).digest(), "big") & _PRIME


@lru_cache(maxsize=1)
def _permutations() -> tuple[np.ndarray, np.ndarray]:
    """The 64 hash permutations ``(a, b)``: fixed by the seed, so stored bucket labels
    stay valid.  Drawn on first use: numpy is not imported with this module (every
    intake and decision imports it, most never compute a signature)."""
    import numpy as np

    rng = np.random.default_rng(20261130)
    a = rng.integers(1, _PRIME, PERMUTATIONS, dtype=np.uint64)
    b = rng.integers(0, _PRIME, PERMUTATIONS, dtype=np.uint64)
    return a, b


def signature(sh: frozenset[str]) -> np.ndarray:
    """MinHash signature (64 values) of a shingle set."""
    import numpy as np

    if not sh:
        return np.full(PERMUTATIONS, _PRIME, dtype=np.uint64)
    a, b = _permutations()
    h = np.fromiter((_hash31(s) for s in sh), dtype=np.uint64, count=len(sh))
    return ((a[:, None] * h[None, :] + b[:, None]) % _PRIME).min(axis=1)


def buckets(sh: frozenset[str]) -> list[str]:
    """One bucket label per band of the signature."""
    sig = signature(sh)
    return [
        hashlib.blake2b(sig[b * ROWS : (b + 1) * ROWS].tobytes(), digest_size=8).hexdigest()
        for b in range(BANDS)
    ]


@dataclass(frozen=True)
class Match:
    """A text resembling a tombstoned reflection."""

    tombstone_id: str
    score: float
    """Jaccard similarity of the shingle sets."""


@dataclass(frozen=True)
class Tombstone:
    """The remembered text of an invalidated reflection."""

    reflection_id: str
    content: str
    skill: str | None
    reason: str
    batch_id: str | None
    created_at: str
    lifted_at: str | None


def bury(log: BatchLog, rid: str, content: str, skill: str | None, reason: str, at: str) -> None:
    """Remember ``content`` as the tombstone of ``rid`` (replacing a lifted one)."""
    values = {"content": content, "skill": skill, "reason": reason, "batch_id": log.batch_id}
    if not log.update("brainview_tombstone", {"reflection_id": rid}, {**values, "lifted_at": None}):
        log.insert(
            "brainview_tombstone",
            {"reflection_id": rid, **values, "created_at": at, "lifted_at": None},
        )
    for band, bucket in enumerate(buckets(shingles(content))):
        log.delete("brainview_tombstone_band", {"reflection_id": rid, "band": band})
        log.insert(
            "brainview_tombstone_band", {"reflection_id": rid, "band": band, "bucket": bucket}
        )


def lift(log: BatchLog, rid: str, at: str) -> None:
    """The reflection is live again: its tombstone no longer matches anything."""
    if log.update("brainview_tombstone", {"reflection_id": rid}, {"lifted_at": at}):
        for band in range(BANDS):
            log.delete("brainview_tombstone_band", {"reflection_id": rid, "band": band})


def near_many(
    conn: Connection,
    contents: Mapping[str, str],
    *,
    threshold: float = THRESHOLD,
) -> dict[str, list[Match]]:
    """For each ``{id: content}``, the tombstones it nearly duplicates (best first).

    A text never matches its own tombstone (same id).
    """
    if not contents or not tombstone_reads.any_band(conn):
        return {}  # nothing buried (the usual case): skip the hashing
    sets = {rid: shingles(c) for rid, c in contents.items()}
    wanted: dict[tuple[int, str], set[str]] = {}
    for rid, sh in sets.items():
        if sh:
            for band, bucket in enumerate(buckets(sh)):
                wanted.setdefault((band, bucket), set()).add(rid)
    hits: dict[str, set[str]] = {}
    for tid, band, bucket in tombstone_reads.band_hits(conn, list(wanted)):
        for rid in wanted.get((band, bucket), ()):
            if rid != tid:
                hits.setdefault(rid, set()).add(tid)
    texts = tombstone_reads.buried_contents(conn, {t for ts in hits.values() for t in ts})
    out: dict[str, list[Match]] = {}
    for rid, tids in hits.items():
        found = [Match(t, jaccard(sets[rid], shingles(texts[t]))) for t in tids if t in texts]
        found = [m for m in found if m.score >= threshold]
        if found:
            out[rid] = sorted(found, key=lambda m: (-m.score, m.tombstone_id))
    return out


def near(conn: Connection, content: str, *, threshold: float = THRESHOLD) -> list[Match]:
    """The tombstones ``content`` nearly duplicates (e.g. a new reflection's text)."""
    return near_many(conn, {"": content}, threshold=threshold).get("", [])


def check_text(project: Project, content: str, *, threshold: float = THRESHOLD) -> list[Match]:
    """:func:`near` on the project's agent brain (nothing when it has none)."""
    if project.agent is None:
        return []
    with project.agent.read() as conn:
        return near(conn, content, threshold=threshold)


def listing(conn: Connection, *, include_lifted: bool = False) -> list[Tombstone]:
    """Every tombstone, newest first."""
    rows = tombstone_reads.tombstone_rows(conn, include_lifted=include_lifted)
    return [Tombstone(*r) for r in rows]


def live_lookalikes(
    project: Project, *, threshold: float = THRESHOLD, limit: int = 10_000
) -> dict[str, list[Match]]:
    """Live reflections that nearly duplicate a tombstone (newest first, up to ``limit``)."""
    agent = project.require_agent()
    with agent.read() as conn:
        if not table_exists(conn, "brainview_tombstone"):
            return {}
        contents = tombstone_reads.live_reflection_texts(conn, agent.era, limit)
        return near_many(conn, contents, threshold=threshold)
