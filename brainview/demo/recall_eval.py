"""Scoring a ranking against graded labels, and the plain BM25 baseline recall is
measured against (``bench/bench_recall_quality.py``, ``tests/unit/test_recall_quality.py``).

- :func:`ndcg` — nDCG@k, gain ``2^grade − 1``, discount ``log2(rank + 1)``, ideal = the
  best k grades among every labelled lesson;
- :func:`recall_at` — *capped* recall: relevant lessons (grade ≥ 1) in the top k divided
  by ``min(k, relevant)``, so a family of 8,000 lessons can still score 1;
- :func:`top2_at` — the share of the grade-2 lessons (same family, same neurons) in the
  top k.

:class:`PlainBM25` is BM25 as SQLite's FTS5 computes it (``bm25()``, k1 = 1.2,
b = 0.75, Porter/Unicode tokenizer) over the raw text of every live lesson, in a
private in-memory database: no ``[user:…]`` expansion, no spreading, no retrievability.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Mapping
from pathlib import Path

from brainview.store.connect import connect


def ndcg(ranked: list[str], grades: Mapping[str, int], k: int = 10) -> float:
    """nDCG@k (module docstring)."""
    dcg = sum((2 ** grades.get(r, 0) - 1) / math.log2(i + 2) for i, r in enumerate(ranked[:k]))
    ideal = sorted(grades.values(), reverse=True)[:k]
    idcg = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked: list[str], grades: Mapping[str, int], k: int = 10) -> float:
    """Capped recall@k (module docstring)."""
    rel = {r for r, g in grades.items() if g >= 1}
    return len(rel & set(ranked[:k])) / min(k, len(rel)) if rel else 0.0


def top2_at(ranked: list[str], grades: Mapping[str, int], k: int = 10) -> float | None:
    """Share of the grade-2 lessons in the top k (``None`` when there is none)."""
    best = {r for r, g in grades.items() if g == 2}
    return len(best & set(ranked[:k])) / len(best) if best else None


class PlainBM25:
    """FTS5 BM25 over the raw text of the live lessons of an agent brain."""

    def __init__(self, agent_db: Path) -> None:
        self.mem = sqlite3.connect(":memory:")
        self.mem.execute(
            "CREATE VIRTUAL TABLE fts USING fts5(id UNINDEXED, body, tokenize = 'porter unicode61')"
        )
        src = connect(agent_db, write=False, timeout=30)
        try:
            rows = src.execute(
                "SELECT id, content FROM neuron WHERE type = 'reflection' AND retired_at IS NULL"
            ).fetchall()
        finally:
            src.close()
        self.mem.executemany("INSERT INTO fts (id, body) VALUES (?, ?)", rows)

    def rank(self, text: str, k: int = 10) -> list[str]:
        """The ``k`` best lessons for any of the whitespace-separated terms of ``text``."""
        terms = text.split()
        if not terms:
            return []
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        return [
            str(r)
            for (r,) in self.mem.execute(
                "SELECT id FROM fts WHERE fts MATCH ? ORDER BY bm25(fts), id LIMIT ?", (match, k)
            )
        ]

    def close(self) -> None:
        self.mem.close()
