"""The fields of a curator proposal that name things: a problem found at a key path
(:func:`fail`), names checked once per batch (:class:`Seen`), and the consulted and
retrieved reflection lists — read in one go when plain (one character search for their
ids, one for their notes), checked one by one otherwise so the first problem is named.

Pure, like :mod:`brainview.core.proposal_parse`, which parses the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from brainview.core.grading import STANCES
from brainview.core.proposal_rules import MAX_CONSULTED, MAX_NOTE, MAX_REFLECTION_ID
from brainview.core.text_rules import FieldError, all_names, all_texts, check_name, check_text

_RID_HINT = f"must be a reflection id of at most {MAX_REFLECTION_ID} characters"


def _at(index: int, fld: str) -> str:
    base = f"proposal[{index}]"
    return base + (fld if not fld or fld[0] in ".[" else f".{fld}")


def fail(index: int, fld: str, reason: str) -> FieldError:
    """A problem with proposal ``index`` at ``fld`` (``""``: the whole proposal)."""
    return FieldError(_at(index, fld), reason)


@dataclass
class Seen:
    """What one batch already found good: names (with their length bound) and
    timestamps, so the thousands of proposals of a consolidation, which name the same
    reflections and share a creation time, check each value once."""

    names: set[tuple[str, int]] = field(default_factory=set)
    created: dict[str, str] = field(default_factory=dict)


def named(
    index: int, fld: str, value: object, max_len: int, hint: str, seen: Seen | None = None
) -> str:
    if seen is not None and type(value) is str and (value, max_len) in seen.names:
        return value
    try:
        name = check_name(fld, value, max_len=max_len)
    except FieldError as err:
        reason = hint if err.reason.startswith(("required", "longer")) else err.reason
        raise fail(index, fld, reason) from None
    if seen is not None:
        seen.names.add((name, max_len))
    return name


def plain_ids(ids: list[str]) -> bool:
    """Whether every one of ``ids`` passes :func:`named` as a reflection id (one
    search for their characters); ``False`` lets the checks one by one name the first
    that does not."""
    for rid in ids:
        if type(rid) is not str or len(rid) > MAX_REFLECTION_ID or not rid.strip():
            return False
    return all_names(ids)


def retrieved(value: object, index: int, seen: Seen) -> list[str]:
    if type(value) is list and len(value) <= MAX_CONSULTED and plain_ids(value):
        return list(value)
    if not isinstance(value, list) or not all(isinstance(r, str) and r for r in value):
        raise fail(index, "retrieved", "must be a list of reflection ids")
    if len(value) > MAX_CONSULTED:
        raise fail(index, "retrieved", f"more than {MAX_CONSULTED} reflections")
    for j, rid in enumerate(value):
        named(index, f"retrieved[{j}]", rid, MAX_REFLECTION_ID, _RID_HINT, seen)
    return list(value)


def consulted_plain(value: object) -> list[tuple[str, str, str | None]] | None:
    """:func:`consulted` for a list that passes every check, read in one go (the
    reflection ids' characters in one search, the notes' in another); ``None`` for
    anything else, which the checks one by one then name."""
    if type(value) is not list or len(value) > MAX_CONSULTED:
        return None
    out: list[tuple[str, str, str | None]] = []
    notes: list[str] = []
    for item in value:
        if type(item) is str:
            out.append((item, "support", None))
            continue
        if type(item) is not dict:
            return None
        stance = item.get("stance", "support")
        note = item.get("note")
        if type(stance) is not str or stance not in STANCES:
            return None
        if note is not None:
            if type(note) is not str or len(note) > MAX_NOTE:
                return None
            notes.append(note)
        out.append((item.get("reflection"), stance, note))  # type: ignore[arg-type]
    rids = [rid for rid, _s, _n in out]
    if len(set(rids)) != len(rids) or not plain_ids(rids) or not all_texts(notes):
        return None
    return out


def consulted(value: object, index: int, seen: Seen) -> list[tuple[str, str, str | None]]:
    plain = consulted_plain(value)
    if plain is not None:
        return plain
    if not isinstance(value, list):
        raise fail(index, "consulted", "must be a list")
    if len(value) > MAX_CONSULTED:
        raise fail(index, "consulted", f"more than {MAX_CONSULTED} reflections")
    out: list[tuple[str, str, str | None]] = []
    twice: set[str] = set()
    for j, item in enumerate(value):
        where = f"consulted[{j}]"
        if isinstance(item, str):
            item = {"reflection": item}
        if not isinstance(item, dict):
            raise fail(index, where, "must be an object with a reflection id")
        rid = item.get("reflection")
        if not isinstance(rid, str) or not rid:
            raise fail(index, f"{where}.reflection", "required reflection id")
        named(index, f"{where}.reflection", rid, MAX_REFLECTION_ID, _RID_HINT, seen)
        if rid in twice:
            raise fail(index, f"{where}.reflection", f"{rid} consulted twice")
        twice.add(rid)
        stance = item.get("stance", "support")
        if stance not in STANCES:
            raise fail(index, f"{where}.stance", f"must be one of {', '.join(STANCES)}")
        note = item.get("note")
        if note is not None:
            try:
                check_text("note", note, max_len=MAX_NOTE)
            except FieldError as err:
                raise fail(index, f"{where}.note", err.reason) from None
        out.append((rid, str(stance), note))
    return out
