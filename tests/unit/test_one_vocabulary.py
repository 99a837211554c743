"""One glyph, one meaning, one table (issue 32): every symbol the console draws is a
row of :data:`brainview.core.vocabulary.MARKS`, no glyph means two things, and the
help legend is generated from the table."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from brainview.core.vocabulary import GLYPH, LEGEND, MARKS, legend_lines
from brainview.tui.help.guide import render_guide

ROOT = Path(__file__).resolve().parents[2] / "brainview"
SOURCES = [
    *sorted((ROOT / "tui").rglob("*.py")),
    ROOT / "core" / "suspicion.py",
    ROOT / "core" / "refs.py",
]
NOT_MARKS = {
    "→": "prose: a key's effect, 'x → y'",
    "×": "prose: counts, '2× strong', sizes '80×24'",
    "−": "prose: the minus sign",
    "≥": "prose: 'stays ≥ 0.70'",
    "▏": "the footer's key separator",
}
"""Symbols that are punctuation in sentences, not marks."""


def _symbols(text: str) -> set[str]:
    return {ch for ch in text if ord(ch) > 127 and unicodedata.category(ch) in ("So", "Sm")}


def test_each_glyph_and_each_meaning_once() -> None:
    glyphs = [m.glyph for m in MARKS]
    words = [m.word for m in MARKS]
    assert len(set(glyphs)) == len(glyphs), [g for g in glyphs if glyphs.count(g) > 1]
    assert len(set(words)) == len(words)
    assert set(NOT_MARKS).isdisjoint(glyphs)


def test_the_console_draws_no_glyph_outside_the_table() -> None:
    known = set(GLYPH.values()) | set(NOT_MARKS)
    stray = {
        f"{path.relative_to(ROOT)}: {ch}"
        for path in SOURCES
        for ch in _symbols(path.read_text(encoding="utf-8"))
        if ch not in known
    }
    assert not stray, sorted(stray)


def test_strong_and_accepted_read_one_way_everywhere() -> None:
    """The pairs the issue found: strong as █ only; ✓ only accepted; ⚠ only challenged."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in SOURCES)
    for wrong in (
        "✓✓",
        "◆ strong",
        "✓ strong",
        "✓ fire",
        "⚠ stale",
        "✗ miss",
        "✓ live",
        "● marked",
    ):
        assert wrong not in text, wrong
    assert GLYPH["strong"] == "█" and GLYPH["accepted"] == "✓" and GLYPH["challenged"] == "⚠"


def test_help_and_legend_come_from_the_table() -> None:
    guide = render_guide({})
    for m in MARKS:
        assert f"{m.glyph} {m.word}" in guide and f"{m.glyph} {m.word}" in LEGEND
    assert all(line in guide for line in legend_lines())


def test_the_docs_name_each_mark_as_the_console_draws_it() -> None:
    """``⚠ stale`` or ``⊘ invalidated`` in a doc page is the drift the table ended: a
    symbol written right before a meaning of the table must be that meaning's glyph."""
    import re

    docs = Path(__file__).resolve().parents[2] / "docs"
    words = sorted(GLYPH, key=len, reverse=True)
    pattern = re.compile(r"(\S) (" + "|".join(re.escape(w) for w in words) + r")\b")
    wrong = sorted(
        f"{page.name}: {m.group(0)!r} (the table: {GLYPH[m.group(2)]})"
        for page in docs.glob("*.md")
        for m in pattern.finditer(page.read_text(encoding="utf-8"))
        if _symbols(m.group(1)) and m.group(1) != GLYPH[m.group(2)]
        and m.group(1) not in NOT_MARKS
    )  # fmt: skip
    assert wrong == []
