"""Which strings name a key a terminal can send (for ``[keys]`` in the config).

Pure: the names are Textual's (``ctrl+shift+up``, ``f5``, ``question_mark``, ``?``),
checked without importing Textual so the config can refuse ``"ctrl+shift+banana"``
before any screen exists.
"""

from __future__ import annotations

import unicodedata

MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})
"""Prefixes joined to a key with ``+``."""

NAMED = frozenset(
    {
        *("escape", "enter", "tab", "space", "backspace", "delete", "insert"),
        *("home", "end", "pageup", "pagedown", "up", "down", "left", "right"),
        *(f"f{n}" for n in range(1, 25)),
        *("slash", "backslash", "at", "minus", "plus", "underscore"),
    }
)
"""Keys with a name rather than a character (Textual's spelling)."""


def _is_character_name(name: str) -> bool:
    """``question_mark``, ``full_stop``, ``left_square_bracket``: an ASCII punctuation
    character's Unicode name written the Textual way (``banana`` names an emoji, not a
    key; other characters are written as themselves)."""
    try:
        char = unicodedata.lookup(name.replace("_", " ").upper())
    except KeyError:
        return False
    return len(char) == 1 and char.isascii() and char.isprintable() and not char.isspace()


def is_key(key: str) -> bool:
    """Whether ``key`` (one key, modifiers included) is a key name."""
    *mods, base = key.split("+")
    if any(m not in MODIFIERS for m in mods) or len(set(mods)) != len(mods):
        return False
    if len(base) == 1:
        return base.isprintable() and not base.isspace()
    return base in NAMED or _is_character_name(base)


def key_problem(keys: str) -> str | None:
    """Why ``keys`` (comma-separated) is not a list of key names, or ``None``."""
    parts = [k.strip() for k in keys.split(",")]
    if not all(parts):
        return f"{keys!r} has an empty key (keys are separated by commas)"
    for part in parts:
        if not is_key(part):
            return f"{part!r} is not a key name (e.g. a, ctrl+y, f5, question_mark)"
    return None
