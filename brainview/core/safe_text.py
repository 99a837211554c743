"""Show untrusted brain text (reflections, proposals, titles) as inert, visible text.

Everything here is pure ``str``/``rich.text.Text`` work: no Textual import, no markup parsing.

* :func:`clean` makes every control, bidi, zero-width and other invisible format character
  *visible* (``ESC`` -> ``␛``, other C0 -> U+2400 pictures, C1/bidi/format -> ``⟨U+202E⟩``),
  expands tabs, and replaces lone surrogates with U+FFFD.  Only ``\\n`` survives as a control.
* :func:`safe_text` builds a :class:`rich.text.Text` with ``Text(...)`` -- never
  ``Text.from_markup`` -- so ``[bold]`` or ``[@click=app.quit]`` stay literal.
* :func:`escape_markup` / :func:`escape_textual_markup` are for the rare caller that must feed a
  markup-parsing API (Rich console markup, e.g. ``DataTable`` string cells; or Textual content
  markup, e.g. ``Static``/``Label``/``notify`` with ``markup=True``).  The two parsers disagree
  about backslashes, so each gets its own escaper.  Prefer passing :func:`safe_text` results.
"""

from __future__ import annotations

import re
import unicodedata

from rich.text import Text

__all__ = [
    "ELLIPSIS",
    "clean",
    "escape_markup",
    "escape_textual_markup",
    "first_line",
    "one_line",
    "safe_text",
    "truncate",
]

ELLIPSIS = "…"
TAB = "    "
NEWLINE_MARK = " ⏎ "
_MAX_BACKOFF = 32  # truncate() never walks back further than this looking for a boundary

# C0 (minus \t \n), DEL, C1, the "invisible" Cf format characters (bidi marks/embeddings/
# overrides/isolates, zero-width space/joiners, word joiner, BOM, invisible operators,
# interlinear annotations, Arabic/Syriac/Kaithi/Egyptian/shorthand/musical format controls,
# Unicode tag characters), the line/paragraph separators, Hangul fillers and all surrogates.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
    "\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f\ud800-\udfff]"
)
_SURROGATE = re.compile("[\ud800-\udfff]")
_TOKEN = re.compile(r"⟨U\+[0-9A-F]{4,6}⟩")
# Rich: a ``[`` opening something Rich would parse as a tag (same shape as rich.markup.RE_TAGS).
_RICH_BRACKET = re.compile(r"(\\*)\[(?P<tag>(?=[a-z#/@][^\[]*?\]))?")
_TRAILING_BACKSLASHES = re.compile(r"\\+\Z")


def _visible(match: re.Match[str]) -> str:
    """Replacement for one unsafe character."""
    cp = ord(match.group())
    if cp < 0x20:
        return chr(0x2400 + cp)  # ␀ … ␛ … ␟  (ESC -> ␛)
    if cp == 0x7F:
        return "␡"
    return f"⟨U+{cp:04X}⟩"


def _fix_surrogates(s: str) -> str:
    """Join well-formed surrogate pairs and replace lone surrogates with U+FFFD."""
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def clean(s: str | None, *, multiline: bool = True) -> str:
    """Return ``s`` with every control/invisible character made visible.

    ``\\r\\n`` becomes ``\\n``; ``\\n`` is kept (or becomes ``" ⏎ "`` when ``multiline`` is
    false); ``\\t`` becomes four spaces; lone surrogates become U+FFFD.  The result contains no
    C0 (except ``\\n``), DEL, C1, bidi, zero-width or surrogate code points, so
    ``clean(clean(s)) == clean(s)``.
    """
    if not s:
        return ""
    if _SURROGATE.search(s):
        s = _fix_surrogates(s)
    s = s.replace("\r\n", "\n").replace("\t", TAB)
    s = _UNSAFE.sub(_visible, s)
    return s if multiline else s.replace("\n", NEWLINE_MARK)


def _joins_previous(s: str, i: int) -> bool:
    """True if a cut just before ``s[i]`` would split a visible cluster (roughly)."""
    ch, prev = s[i], s[i - 1]
    cp = ord(ch)
    if "\udc00" <= ch <= "\udfff" and "\ud800" <= prev <= "\udbff":
        return True  # surrogate pair
    if ch == "\u200d" or prev == "\u200d":
        return True  # zero-width joiner sequence
    if 0x1F3FB <= cp <= 0x1F3FF or 0xE0020 <= cp <= 0xE007F:
        return True  # emoji skin-tone modifier, emoji tag sequence
    if 0x1F1E6 <= cp <= 0x1F1FF:  # regional indicator: don't split a flag pair
        run = 0
        while run < 2 * _MAX_BACKOFF and i > run and 0x1F1E6 <= ord(s[i - run - 1]) <= 0x1F1FF:
            run += 1
        return run % 2 == 1
    return unicodedata.category(ch) in ("Mn", "Mc", "Me")  # combining marks, VS1-256


def _cut(s: str, limit: int) -> tuple[str, bool]:
    """The kept prefix of ``s`` (``len <= limit - 1``) and whether anything was cut."""
    if limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    if len(s) <= limit:
        return s, False
    cut = max(limit - 1, 0)
    end = cut
    while end > 0 and cut - end < _MAX_BACKOFF and _joins_previous(s, end):
        end -= 1
    if end > 0 and _joins_previous(s, end):  # pathological run (e.g. "zalgo"): hard cut
        end = cut - 1 if "\ud800" <= s[cut - 1] <= "\udbff" else cut
    start = s.rfind("⟨", max(0, end - 11), end)  # don't split a ⟨U+XXXX⟩ token
    if start >= 0 and (m := _TOKEN.match(s, start)) and m.end() > end:
        end = start
    return s[:end], True


def truncate(s: str, limit: int) -> tuple[str, bool]:
    """Cut ``s`` to at most ``limit`` characters (ellipsis included) at a cluster boundary.

    Surrogate pairs, combining marks, variation selectors, ZWJ/flag/skin-tone emoji sequences
    and :func:`clean`'s ``⟨U+XXXX⟩`` tokens are not split (best effort, bounded look-back).
    Returns ``(text, was_truncated)``; a truncated ``text`` ends with ``…`` (unless
    ``limit == 0``, which yields ``""``).
    """
    kept, cut = _cut(s, limit)
    if not cut:
        return s, False
    return (kept + ELLIPSIS if limit > 0 else ""), True


def safe_text(
    s: str | None,
    *,
    style: str = "",
    limit: int | None = None,
    multiline: bool = True,
) -> Text:
    """A :class:`~rich.text.Text` showing ``s`` literally (no markup, no escape sequences).

    With ``limit``, the cleaned text is truncated to ``limit`` characters and a dim
    ``" [+N chars]"`` note (N = cleaned characters hidden) is appended as a separate span.
    """
    cleaned = clean(s, multiline=multiline)
    if limit is None:
        return Text(cleaned, style=style)
    kept, was_cut = _cut(cleaned, limit)
    if not was_cut:
        return Text(cleaned, style=style)
    text = Text(kept + ELLIPSIS if limit > 0 else "", style=style)
    text.append(f" [+{len(cleaned) - len(kept)} chars]", style="dim")  # plain append: no markup
    return text


def one_line(s: str | None, limit: int = 80) -> str:
    """Cleaned, single-line, truncated plain text for table cells and notifications.

    The result is *plain text*: hand it to ``Text(...)``/``Content(...)``, or run it through
    :func:`escape_markup` / :func:`escape_textual_markup` before any markup-parsing API.
    """
    return truncate(clean(s, multiline=False).strip(), limit)[0]


def first_line(s: str | None, limit: int = 80) -> str:
    """First non-empty line of markdown-ish ``s``, without leading ``#``s, cleaned, truncated."""
    for line in clean(s).split("\n"):
        line = line.strip().lstrip("#").strip()
        if line:
            return truncate(line, limit)[0]
    return ""


def escape_markup(s: str | None) -> str:
    """Clean ``s`` and escape it for **Rich** console markup (``Text.from_markup``, ``[...]``
    strings in ``DataTable`` cells, ``Console.print``).

    Like ``rich.markup.escape`` but exact: backslashes in front of *any* ``[`` are preserved
    (Rich also turns ``\\[`` into ``[`` outside tags, which ``rich.markup.escape`` ignores).
    A trailing backslash run is doubled so a tag the caller appends still works (rendered
    alone, such a run shows doubled).
    Rich's ``:emoji:`` codes are not markup and are left alone; pass ``emoji=False`` for
    byte-exact output.
    """

    def _bracket(m: re.Match[str]) -> str:
        n = len(m.group(1))
        return "\\" * (2 * n + 1 if m.group("tag") is not None else n + 1) + "["

    out = _RICH_BRACKET.sub(_bracket, clean(s))
    return _TRAILING_BACKSLASHES.sub(lambda m: m.group() * 2, out)


def escape_textual_markup(s: str | None) -> str:
    """Clean ``s`` and escape it for **Textual** content markup (``Content.from_markup``,
    ``Static``/``Label``/``notify`` with ``markup=True``).

    Textual treats *every* unescaped ``[`` as a tag opener (``[$accent]``, ``[ @click=…]``,
    ``[Bold]`` …), which ``rich.markup.escape`` misses, and it has no way to escape a backslash.
    So every ``[`` becomes ``\\[``, and a final trailing backslash becomes ``⧵`` (U+29F5) so it
    cannot swallow a tag the caller appends.  Template ``$variables`` are only expanded if the
    caller passes variables; don't.
    """
    out = clean(s).replace("[", "\\[")
    return out[:-1] + "⧵" if out.endswith("\\") else out
