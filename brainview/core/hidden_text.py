"""Hidden text in a lesson: characters a reader does not see but a model reads.

Zero-width characters, Unicode tag characters (U+E0000 block, which can spell a whole
invisible instruction), bidi controls (which reorder what is shown) and control
characters (ESC, CSI and the other C0/C1 codes but tab and line breaks: a terminal that
shows the text raw obeys them — colours, cursor moves, OSC 52 clipboard writes).  New writes
refuse bidi controls already (:mod:`brainview.core.text_rules`), but lessons written by
Spikuit or older tools may hold them, and zero-width and tag characters are allowed in
free text.  Legitimate uses are spared: a zero-width joiner inside an emoji sequence
and the tag characters of an emoji flag (🏴 + tags + cancel tag).
"""

from __future__ import annotations

import re

ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff\u180e\u2061-\u2064"
"""Zero-width space, non-joiner, joiner, word joiner, BOM, invisible operators."""
BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
"""The same set :data:`brainview.core.text_rules.BIDI` refuses on new writes."""
_ZW = re.compile(f"[{ZERO_WIDTH}]")
_TAG = re.compile("[\U000e0000-\U000e007f]")
_BIDI = re.compile(f"[{BIDI}]")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_FLAG = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")
_BLACK_FLAG = "\U0001f3f4"


def _pictographic(ch: str) -> bool:
    """Roughly: an emoji or a variation selector / skin tone that an emoji ZWJ joins."""
    cp = ord(ch)
    return cp >= 0x1F000 or 0x2600 <= cp <= 0x27BF or cp in (0xFE0F, 0x2640, 0x2642)


def _zero_width(text: str) -> int:
    n = 0
    for m in _ZW.finditer(text):
        i = m.start()
        joiner = m.group() == "\u200d" and 0 < i < len(text) - 1
        if joiner and _pictographic(text[i - 1]) and _pictographic(text[i + 1]):
            continue  # 👩‍💻: an emoji sequence, not hidden text
        n += 1
    return n


def counts(text: str | None) -> dict[str, int]:
    """``{"zero-width": n, "tag": n, "bidi": n, "control": n}`` for the characters found
    (none: ``{}``)."""
    if not text:
        return {}
    spared = _FLAG.sub(_BLACK_FLAG, text) if _BLACK_FLAG in text else text
    found = {
        "zero-width": _zero_width(spared),
        "tag": len(_TAG.findall(spared)),
        "bidi": len(_BIDI.findall(spared)),
        "control": len(_CONTROL.findall(spared)),
    }
    return {k: v for k, v in found.items() if v}


def hidden_reason(text: str | None) -> str | None:
    """One line naming the hidden characters in ``text``, ``None`` when there are none."""
    found = counts(text)
    if not found:
        return None
    names = {
        "zero-width": "zero-width",
        "tag": "tag (U+E0000 block)",
        "bidi": "bidi control",
        "control": "control (ESC, CSI, …)",
    }
    parts = [f"{n} {names[k]} character{'s' if n > 1 else ''}" for k, n in found.items()]
    tag = _TAG.findall(text or "")
    spelled = "".join(chr(ord(c) - 0xE0000) for c in tag if 0x20 <= ord(c) - 0xE0000 < 0x7F)
    say = f" spelling “{spelled[:40]}”" if len(spelled) >= 3 else ""
    return "hidden text: " + ", ".join(parts) + say
