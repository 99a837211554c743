"""brainview.core.safe_text: hostile brain text must render as inert, visible text (no loop)."""

from __future__ import annotations

import io
import re
import sys
import time
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.markup import render
from rich.text import Span, Text

from brainview.core.safe_text import (
    ELLIPSIS,
    clean,
    escape_markup,
    escape_textual_markup,
    first_line,
    one_line,
    safe_text,
    truncate,
)

FRAGMENTS = [
    "[bold]",
    "[/bold]",
    "[/]",
    "[link=http://evil.example]",
    "[@click=app.quit]",
    "[ @click=app.quit]",
    "[$accent]",
    "[Bold]",
    "[user:n1]",
    "[on red]",
    "[",
    "]",
    "\\",
    "\\\\",
    "\\[",
    ":cat:",
    "\x1b[31m",
    "\x1b[2J",
    "\x1b]52;c;SGVsbG8=\x07",
    "\x1b]8;;http://x\x1b\\",
    "\x1b]0;title\x07",
    "\x1bP+q\x1b\\",
    "\x9b31m",
    "\x9d0;t\x9c",
    "\x85",
    "\u202e",
    "\u202d",
    "\u2066",
    "\u2069",
    "\u200e",
    "\u200f",
    "\u061c",
    "\u200b",
    "\u200d",
    "\ufeff",
    "\u2028",
    "\U000e0041",
    "\x00",
    "\x7f",
    "\r\n",
    "\r",
    "\n",
    "\t",
    "\ud83d",
    "\ude00",
    "\ud83d\ude00",
    "😀",
    "👨\u200d👩\u200d👧",
    "🇯🇵",
    "e\u0301",
    "漢字かな",
    "مرحبا",
    "שלום",
    "⟨U+202E⟩",
    " ",
    "#",
]
hostile = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=8), st.characters(codec=None)),
    max_size=40,
).map("".join)

BIDI = set("\u061c\u200e\u200f") | {
    chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))
}
SGR = re.compile(r"\x1b\[[0-9;]*m")


def assert_inert(out: str, *, newlines: bool = True) -> None:
    """No code point in ``out`` can act as a control, bidi or invisible format character."""
    for ch in out:
        cp = ord(ch)
        assert cp >= 0x20 or (ch == "\n" and newlines), repr(ch)
        assert not 0x7F <= cp <= 0x9F, repr(ch)
        assert ch not in BIDI and not 0xD800 <= cp <= 0xDFFF, repr(ch)
        assert unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Zl", "Zp") or ch == "\n"


@settings(deadline=None)
@given(hostile)
def test_clean_output_is_inert_and_idempotent(s: str) -> None:
    for multiline in (True, False):
        out = clean(s, multiline=multiline)
        assert_inert(out, newlines=multiline)
        assert clean(out, multiline=multiline) == out
    out = clean(s)
    if out:  # only "\n" may split lines (no \r, \x0b, \x1c, \x85, \u2028 ...)
        assert out.splitlines() == out.split("\n")[: -1 if out.endswith("\n") else None]


def test_clean_examples() -> None:
    assert clean(None) == "" and clean("") == ""
    assert clean("a\x1b[31mb") == "a␛[31mb"
    assert clean("\x00\x07\x7f") == "␀␇␡"
    assert clean("\x9b\x9d\u202e\u2066\u200b\u061c") == (
        "⟨U+009B⟩⟨U+009D⟩⟨U+202E⟩⟨U+2066⟩⟨U+200B⟩⟨U+061C⟩"
    )
    assert clean("a\tb") == "a    b"
    assert clean("a\r\nb\rc") == "a\nb␍c"
    assert clean("a\nb", multiline=False) == "a ⏎ b"
    assert clean("x\ud83d\ude00y\ud800z\udfff") == "x😀y\ufffdz\ufffd"
    assert clean("[bold]漢字 مرحبا 😀 e\u0301") == "[bold]漢字 مرحبا 😀 e\u0301"


def test_every_control_and_format_char_is_covered() -> None:
    for cp in range(sys.maxunicode + 1):
        ch = chr(cp)
        if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp") and ch not in "\n\t":
            assert clean(ch) != ch, hex(cp)


def _render(renderable: Text, **kwargs: object) -> str:
    console = Console(
        file=io.StringIO(), force_terminal=True, color_system="truecolor", width=80, **kwargs
    )
    console.print(renderable)
    return console.file.getvalue()  # type: ignore[attr-defined]


@settings(deadline=None)
@given(
    hostile, st.sampled_from(["", "bold", "italic red on black"]), st.none() | st.integers(0, 60)
)
def test_rendered_safe_text_has_only_rich_sgr(s: str, style: str, limit: int | None) -> None:
    out = _render(safe_text(s, style=style, limit=limit))
    assert "\x1b]" not in out
    stripped = SGR.sub("", out)
    assert "\x1b" not in stripped
    assert_inert(stripped)


@settings(deadline=None)
@given(hostile)
def test_rendered_plain_text_is_exactly_the_cleaned_text(s: str) -> None:
    out = SGR.sub("", _render(safe_text(s, style="bold"), soft_wrap=True))
    assert out == clean(s) + "\n"


def test_markup_stays_literal_when_rendered() -> None:
    s = "[bold]x[/bold] [link=http://evil]y[/link] [@click=app.quit]z[/] [user:n1] \x1b]8;;u\x07"
    text = safe_text(s)
    assert text.plain == clean(s)
    assert text.spans == []
    out = SGR.sub("", _render(text, soft_wrap=True))
    for literal in ("[bold]", "[link=http://evil]", "[@click=app.quit]", "[user:n1]", "␛]8;;u␇"):
        assert literal in out


def test_safe_text_truncation_note() -> None:
    s = "[b]" + "x" * 30_000 + "\x1b"
    text = safe_text(s, style="bold", limit=10)
    assert text.plain == "[b]xxxxxx" + ELLIPSIS + " [+29995 chars]"
    assert text.style == "bold"
    assert text.spans == [Span(10, len(text.plain), "dim")]
    assert safe_text("short", limit=10).plain == "short"
    assert safe_text("a\nb", multiline=False).plain == "a ⏎ b"


@settings(deadline=None)
@given(hostile, st.integers(0, 50))
def test_safe_text_note_counts_hidden_chars(s: str, limit: int) -> None:
    cleaned = clean(s)
    text = safe_text(s, limit=limit)
    if len(cleaned) <= limit:
        assert text.plain == cleaned
    else:
        kept, note = text.plain.rsplit(" [+", 1)
        hidden = int(note.removesuffix(" chars]"))
        assert len(kept.removesuffix(ELLIPSIS)) + hidden == len(cleaned)


@settings(deadline=None)
@given(hostile)
def test_escape_markup_round_trips_through_rich(s: str) -> None:
    cleaned = clean(s)
    wrapped = Text.from_markup(f"[bold]{escape_markup(s)}[/bold]", emoji=False)
    assert wrapped.plain == cleaned
    assert wrapped.spans == [Span(0, len(cleaned), "bold")]
    if not cleaned.endswith("\\"):
        alone = render(escape_markup(s), emoji=False)
        assert alone.plain == cleaned and alone.spans == []


def test_escape_markup_keeps_actions_and_links_literal() -> None:
    s = "[@click=app.quit]quit[/] [link=x]y[/link] [bold]z[/] [user:n1] a\\[1] b\\\\[i]c"
    for text in (render(escape_markup(s)), Text.from_markup(escape_markup(s))):
        assert text.plain == s
        assert text.spans == []
    assert escape_markup("a\\") == "a\\\\"  # trailing backslash cannot eat a following tag
    assert Text.from_markup("[b]" + escape_markup("a\\") + "[/b]").plain == "a\\"


@settings(deadline=None)
@given(hostile)
def test_escape_textual_markup_round_trips_through_textual(s: str) -> None:
    content_mod = pytest.importorskip("textual.content")
    cleaned = clean(s)
    escaped = escape_textual_markup(s)
    expected = cleaned[:-1] + "⧵" if cleaned.endswith("\\") else cleaned
    assert content_mod.Content.from_markup(escaped).plain == expected
    wrapped = content_mod.Content.from_markup(f"[b]{escaped}[/b]")
    assert wrapped.plain == expected
    assert len(wrapped.spans) == (1 if expected else 0)


def test_escape_textual_markup_examples() -> None:
    content_mod = pytest.importorskip("textual.content")
    s = "[ @click=app.quit]q[/] [$accent]v [Bold]w[/Bold] [@click=app.quit]x[/] a\\[b"
    content = content_mod.Content.from_markup(escape_textual_markup(s))
    assert content.plain == s
    assert content.spans == []


def test_truncate_basics() -> None:
    assert truncate("abc", 3) == ("abc", False)
    assert truncate("abcd", 3) == ("ab" + ELLIPSIS, True)
    assert truncate("abcd", 1) == (ELLIPSIS, True)
    assert truncate("abcd", 0) == ("", True)
    assert truncate("", 0) == ("", False)
    with pytest.raises(ValueError):
        truncate("abc", -1)


def test_truncate_does_not_split_clusters() -> None:
    assert truncate("ab\ud83d\ude00cd", 4) == ("ab" + ELLIPSIS, True)  # raw surrogate pair
    assert truncate("ab😀cd", 4) == ("ab😀" + ELLIPSIS, True)
    assert truncate("abe\u0301\u0302x", 5) == ("ab" + ELLIPSIS, True)  # combining marks
    assert truncate("a👨\u200d👩\u200d👧z", 5) == ("a" + ELLIPSIS, True)  # ZWJ sequence
    assert truncate("a🇯🇵🇫🇷z", 5) == ("a🇯🇵" + ELLIPSIS, True)  # flag pairs
    assert truncate("ab👍🏽z", 4) == ("ab" + ELLIPSIS, True)  # skin-tone modifier
    assert truncate("ab❤\ufe0fz", 4) == ("ab" + ELLIPSIS, True)  # variation selector
    assert truncate("ab⟨U+202E⟩cd", 8) == ("ab" + ELLIPSIS, True)  # clean() token
    zalgo = "z" + "\u0301" * 100
    assert truncate(zalgo, 50) == (zalgo[:49] + ELLIPSIS, True)  # bounded look-back


def test_truncate_30k_is_fast_and_correct() -> None:
    s = ("[bold]\x1b]52;c;SGVsbG8=\x07\u202e漢😀e\u0301" * 2000)[:30_000]
    start = time.perf_counter()
    for _ in range(50):
        text, cut = truncate(clean(s), 200)
    assert time.perf_counter() - start < 2.0
    assert cut and len(text) <= 200 and text.endswith(ELLIPSIS)
    assert clean(s).startswith(text[:-1])
    long_emoji = "😀" * 30_000
    assert truncate(long_emoji, 100) == ("😀" * 99 + ELLIPSIS, True)


@settings(deadline=None)
@given(hostile, st.integers(0, 60))
def test_truncate_properties(s: str, limit: int) -> None:
    text, cut = truncate(s, limit)
    assert len(text) <= limit
    assert cut == (len(s) > limit)
    if cut:
        assert text == "" or (text.endswith(ELLIPSIS) and s.startswith(text[:-1]))
        kept = text[:-1]
        assert not (kept and "\ud800" <= kept[-1] <= "\udbff" and s[len(kept)] >= "\udc00")
    else:
        assert text == s


@settings(deadline=None)
@given(hostile, st.integers(1, 100))
def test_one_line_is_single_inert_line(s: str, limit: int) -> None:
    out = one_line(s, limit)
    assert "\n" not in out and len(out) <= limit
    assert_inert(out, newlines=False)


def test_one_line_and_first_line_examples() -> None:
    assert one_line("  a\nb\x1b[0m  ") == "a ⏎ b␛[0m"
    assert one_line("x" * 100, 10) == "x" * 9 + ELLIPSIS
    assert one_line(None) == ""
    md = "\n  \n## Title [bold]x\u202e\nbody\n"
    assert first_line(md) == "Title [bold]x⟨U+202E⟩"
    assert first_line("###\n\n#  \n\tHello\tthere") == "Hello    there"
    assert first_line("# " + "y" * 100, limit=5) == "yyyy" + ELLIPSIS
    assert first_line("\n \n#") == "" and first_line(None) == ""
