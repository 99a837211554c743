"""What text may carry into a brain: one rule for every string a proposal, a decision
or a lifecycle action stores.

Two kinds of strings:

* **names** — single-line identifiers, shown in tables and titles and by ``spkt``: ids,
  skills, runtimes, domains, synapse ends, reflection and policy ids, decider and actor
  names, object keys, and every string under a kind's known params except its free-text
  fields.  Refused: every C0 control (newline and tab included), DEL, every C1 control,
  the bidi controls (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069), the invisible
  format characters that :func:`brainview.core.safe_text.clean` makes visible (zero-width
  space and joiners, word joiner, BOM, soft hyphen, tag characters, line and paragraph
  separators …) and lone surrogates.
* **free text** — rationales, notes, reasons, edited content, policy text, unknown params:
  ``\\n``, ``\\t`` and ``\\r\\n`` are allowed; every other C0 control (NUL, ESC …), a lone
  ``\\r``, DEL, C1 controls, bidi controls and lone surrogates are refused.  Zero-width
  joiners and other format characters stay allowed (emoji sequences, the Persian
  zero-width non-joiner): screens show them visibly anyway.

Markup such as ``[bold]`` or ``[@click=app.quit]`` is plain text here: stored as written,
never interpreted (see :mod:`brainview.core.safe_text`).

Pure and light (``re`` only): the config loader uses it on the ``--help`` path.
"""

from __future__ import annotations

import re

BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
"""Bidi marks, embeddings, overrides and isolates."""
_INVISIBLE = (
    "\u00ad\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200d\u2028\u2029"
    "\u2060-\u2065\u206a-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f"
)
_NAME_BAD = re.compile(f"[\x00-\x1f\x7f-\x9f{BIDI}{_INVISIBLE}\ud800-\udfff]")
_TEXT_BAD = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{BIDI}\ud800-\udfff]|\r(?!\n)")
_BIDI_SET = re.compile(f"[{BIDI}]")


class FieldError(ValueError):
    """A refused value: ``field`` names where it was (``params.new``, ``decider``;
    ``""``: the message is the reason alone)."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}" if field else reason)
        self.field = field
        self.reason = reason


def describe(ch: str) -> str:
    """What kind of refused character ``ch`` is, with its code point."""
    cp = ord(ch)
    if cp < 0x20 or 0x7F <= cp <= 0x9F:
        what = "control character"
    elif _BIDI_SET.match(ch):
        what = "bidi control"
    elif 0xD800 <= cp <= 0xDFFF:
        what = "lone surrogate"
    else:
        what = "invisible character"
    return f"{what} U+{cp:04X} not allowed"


def name_problem(value: str) -> str | None:
    """Why ``value`` cannot be a name (``None``: it can)."""
    found = _NAME_BAD.search(value)
    return None if found is None else describe(found.group()[0])


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot be free text (``None``: it can)."""
    found = _TEXT_BAD.search(value)
    return None if found is None else describe(found.group()[0])


def all_names(values: list[str]) -> bool:
    """Whether every one of ``values`` could be a name, as far as its characters go:
    one search over them all (the bad characters are single characters, so joining
    them hides none)."""
    return _NAME_BAD.search("".join(values)) is None


def all_texts(values: list[str]) -> bool:
    """Whether every one of ``values`` could be free text, as far as its characters go:
    one search, the values joined by a space (a lone ``\\r`` at the end of one stays
    lone)."""
    return _TEXT_BAD.search(" ".join(values)) is None


def check_name(field: str, value: object, *, max_len: int = 128, required: bool = True) -> str:
    """``value`` as a name (non-blank, at most ``max_len`` characters), or FieldError."""
    if not isinstance(value, str) or (required and not value.strip()):
        raise FieldError(field, "required non-empty string")
    if len(value) > max_len:
        raise FieldError(field, f"longer than {max_len} characters")
    why = name_problem(value)
    if why:
        raise FieldError(field, why)
    return value


def check_text(field: str, value: object, *, max_len: int, required: bool = False) -> str:
    """``value`` as free text of at most ``max_len`` characters, or FieldError."""
    if not isinstance(value, str):
        raise FieldError(field, "must be a string")
    if required and not value.strip():
        raise FieldError(field, "required non-empty string")
    if len(value) > max_len:
        raise FieldError(field, f"longer than {max_len} characters")
    why = text_problem(value)
    if why:
        raise FieldError(field, why)
    return value


MAX_STORED_TEXT = 1_000_000
"""The longest string any row brainview writes may hold (every path's own limit is lower:
a rationale 100,000, params text 200,000; this is the door's backstop)."""


def row_problem(table: str, row: dict[str, object], cols: object = None) -> str | None:
    """``table.column: why`` for the first string value in ``row`` (only ``cols`` when
    given) that free text may not hold, else ``None``: the rule every row a brainview
    write stores passes (:class:`brainview.store.effects.EffectLog`), whatever path
    built it — a proposal, an outcome, a ``.learnings/`` entry, a lifecycle action.
    ``*_json`` columns are encoded data (snapshots of rows as they were), not text.
    Longer than :data:`MAX_STORED_TEXT` is refused too."""
    names = row if cols is None else cols
    for col in names:  # type: ignore[attr-defined]
        value = row.get(col)
        if isinstance(value, str) and not str(col).endswith("_json"):  # JSON: encoded data
            if len(value) > MAX_STORED_TEXT:
                return f"{table}.{col}: longer than {MAX_STORED_TEXT:,} characters"
            found = _TEXT_BAD.search(value)
            if found is not None:
                return f"{table}.{col}: {describe(found.group()[0])}"
    return None
