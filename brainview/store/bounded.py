"""Bounded reads of stored proposal text, so a listing costs the same whatever a brain
holds.

Intake bounds what it stores (:mod:`brainview.core.proposal_rules`), but a brain written
by an older version, or by hand, may hold a 10 MB note or a 50 MB ``params_json``.
Listings and the detail view read such columns through these SQL fragments: free text
is cut in SQL (``substr``) and marked, and a ``params_json`` over
:data:`PARAMS_CHARS` is not read at all (``None``; its length is reported instead).
"""

from __future__ import annotations

import sqlite3
from typing import overload

from brainview.core.proposal_rules import MAX_NOTE, MAX_PARAMS_BYTES, MAX_RATIONALE

PARAMS_CHARS = 2 * MAX_PARAMS_BYTES
"""A stored ``params_json`` longer than this (characters) is too large to load."""
SUMMARY_CHARS = 1_000
SUSPICION_CHARS = 65_536
REASON_CHARS = 10_000
RATIONALE_CHARS = MAX_RATIONALE
NOTE_CHARS = MAX_NOTE


def cut(column: str, chars: int) -> str:
    """Two result columns: the first ``chars`` characters of ``column`` and its length."""
    return f"substr({column}, 1, {chars}), length({column})"


_SIZE = "octet_length" if sqlite3.sqlite_version_info >= (3, 43) else "length"
"""SQLite 3.43+ measures a text's bytes without reading it; older ones read it once."""


def size(column: str) -> str:
    """An SQL expression: how large ``column`` is (bytes, or characters before 3.43)."""
    return f"{_SIZE}({column})"


def params(column: str = "params_json") -> str:
    """One result column: ``column`` when at most :data:`PARAMS_CHARS` long, else ``NULL``
    (select :func:`size` too, to say how large it was)."""
    return f"CASE WHEN {size(column)} <= {PARAMS_CHARS} THEN {column} END"


@overload
def shown(value: str, length: int | None, chars: int) -> str: ...
@overload
def shown(value: str | None, length: int | None, chars: int) -> str | None: ...


def shown(value: str | None, length: int | None, chars: int) -> str | None:
    """A value read with :func:`cut`: as stored, or cut with a visible marker."""
    if value is None or length is None or length <= chars:
        return value
    return f"{value}… [{length - chars} more characters not shown]"


def too_large(length: int) -> str:
    """Why a stored proposal's params were not read (a stale reason)."""
    return f"params too large to check ({length} bytes; the limit is {MAX_PARAMS_BYTES})"
