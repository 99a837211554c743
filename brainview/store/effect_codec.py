"""How an effect log is stored: ``brainview_effect`` rows, and reading them back.

Agent-brain schema 3 stores one row per **run** of consecutive effects on the same
table with the same operation (a decision consulting 20 reflections writes ~6 rows,
not ~130; see ``docs/performance.md``):

* ``tbl``: the table (any table of :data:`~brainview.store.rows.PRIMARY_KEYS`);
* ``op``: ``insert_rows`` (no rows before; undo deletes them) or ``update_rows`` (undo
  writes the before-images back; an absent after-image is a deleted row);
* ``key_json``: the primary-key column names, e.g. ``["pre","post","type"]`` (the key
  values are in the images);
* ``before_json`` / ``after_json``: ``{"cols": [...], "rows": [...]}``, one item per row
  in recorded order: the list of the row's values in ``cols`` order (a row with other
  columns is a whole object, an absent row ``null``).  ``before_json`` is ``null`` for
  ``insert_rows``.  For ``update_rows`` the after ``cols`` are the columns the run
  changed, laid over each row's before-image (a synapse update stores 4 values, not
  12); a whole-object after row replaces the before-image.

Schema 2 stored one row per changed row (``op`` ``insert``/``update``, ``key_json`` the
key as an object, ``after_json`` the changed columns of an update).  Those rows are
still read, so decisions recorded before stay undoable.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from brainview.errors import ConflictError, UnknownSchemaError
from brainview.store.rows import (
    PRIMARY_KEYS,
    Row,
    driver,
    encode,
    load_json,
    load_row,
    pack_rows,
    row_getter,
    unpack_row,
)

GROUPED_OPS = {"insert": "insert_rows", "update": "update_rows"}
"""``brainview_effect.op`` of a run of effects (schema 3), by effect op."""
LEGACY_OPS = frozenset({"insert", "update"})
"""``brainview_effect.op`` of a schema-2 row (one effect)."""

_MISSING = object()
_DAMAGE = (ValueError, KeyError, IndexError, TypeError, AttributeError, AssertionError)
"""What reading a hand-edited or truncated ``brainview_effect`` row can raise."""

Entry = list[Any]
"""An effect log's working record of one row: ``[table, before, after, columns]``;
``columns`` are the ones an update may have changed (``None``: compare all)."""


@dataclass
class Effect:
    """One changed row."""

    tbl: str
    op: str
    key: Row
    before: Row | None
    after: Row | None


def pack_runs(decision_id: str, entries: Sequence[Entry]) -> list[tuple[Any, ...]]:
    """The ``brainview_effect`` rows of a decision's entries, in order."""
    out: list[tuple[Any, ...]] = []
    start = 0
    for i in range(1, len(entries) + 1):
        if i == len(entries) or _run_of(entries[i]) != _run_of(entries[start]):
            tbl, op = _run_of(entries[start])
            run = entries[start:i]
            key = encode(PRIMARY_KEYS[tbl])
            out.append((decision_id, len(out), tbl, GROUPED_OPS[op], key, *_pack(op, run)))
            start = i
    return out


def _run_of(entry: Entry) -> tuple[str, str]:
    return entry[0], "insert" if entry[1] is None else "update"


def _pack(op: str, run: Sequence[Entry]) -> tuple[str | None, str]:
    """``(before_json, after_json)`` of one run."""
    if op == "insert":
        cols = tuple(run[0][2] or ())
        return None, encode({"cols": cols, "rows": pack_rows((e[2] for e in run), cols)})
    cols = tuple(run[0][1])
    before = pack_rows((e[1] for e in run), cols)
    changed = _changed_columns(run)
    take: Callable[[Row], tuple[Any, ...]] | None = None
    if set(changed) <= set(cols):  # else rows with other columns changed them
        take = row_getter(changed) if changed else lambda row: ()
    after: list[Any] = []
    for (_t, b, a, _c), packed in zip(run, before, strict=True):
        if a is None:
            after.append(None)
        elif take is not None and type(packed) is list and a.keys() == b.keys():
            after.append(take(a))  # the changed values, laid over the before-image
        else:
            after.append(dict(a))  # other columns: the whole after-image
    return (
        encode({"cols": cols, "rows": before}),
        encode({"cols": changed, "rows": after}),
    )


def _changed_columns(run: Sequence[Entry]) -> list[str]:
    """Columns whose value (or type) differs between before and after in some row; for
    rows written by ``EffectLog.update`` only the columns it set are candidates."""
    changed: dict[str, None] = {}
    hinted: set[int] = set()
    for _t, b, a, cols in run:
        if a is None:
            continue
        if cols is not None:
            if id(cols) not in hinted:  # one tuple per update() call: look at it once
                hinted.add(id(cols))
                changed.update(dict.fromkeys(cols))
            continue
        for c, v in a.items():
            if c not in changed and _differs(b.get(c, _MISSING), v):
                changed[c] = None
    return list(changed)


def _differs(old: Any, new: Any) -> bool:
    """Whether a stored value changed: by type (1 vs 1.0), value, or zero's sign."""
    if type(old) is not type(new) or old != new:
        return True
    return type(new) is float and new == 0.0 and math.copysign(1.0, old) != math.copysign(1.0, new)


def unpack(
    tbl: str, op: str, key_json: str, before_json: str | None, after_json: str | None
) -> list[Effect]:
    """The effects of one stored row, either shape."""
    if op in LEGACY_OPS:  # schema 2: one row per effect
        before, after = load_row(before_json), load_row(after_json)
        if before is not None and after is not None:
            after = {**before, **after}
        return [Effect(tbl, op, json.loads(key_json), before, after)]
    if op not in GROUPED_OPS.values():
        raise UnknownSchemaError(
            f"brainview_effect row with op {op!r} was written by a newer brainview; "
            "upgrade it to undo this decision"
        )
    pk = load_json(key_json)
    bdoc: dict[str, Any] | None = None if before_json is None else load_json(before_json)
    adoc: dict[str, Any] = {} if after_json is None else load_json(after_json)
    n = len(bdoc["rows"] if bdoc is not None else adoc["rows"])
    a_rows, a_cols = adoc.get("rows", [None] * n), adoc.get("cols", [])
    out = []
    for i in range(n):
        before = None if bdoc is None else unpack_row(bdoc["rows"][i], bdoc["cols"])
        item = a_rows[i]
        if before is not None and isinstance(item, list):
            after = {**before, **dict(zip(a_cols, item, strict=True))}
        else:
            after = unpack_row(item, a_cols)
        source = after if after is not None else before
        assert source is not None
        key = {c: source[c] for c in pk}
        out.append(Effect(tbl, "insert" if before is None else "update", key, before, after))
    return out


def stored_effects(conn: Connection, decision_id: str) -> list[Effect]:
    """A decision's effects in the order they were recorded (either storage shape)."""
    rows = driver(conn).execute(
        "SELECT seq, tbl, op, key_json, before_json, after_json FROM brainview_effect "
        "WHERE decision_id = ? ORDER BY seq",
        (decision_id,),
    )
    out: list[Effect] = []
    for seq, *row in rows.fetchall():
        try:
            out.extend(unpack(*row))
        except _DAMAGE as err:
            raise ConflictError(
                f"the effect log of decision {decision_id} is damaged (row {seq}: "
                f"{type(err).__name__}); it cannot be undone or restored"
            ) from None
    return out


def mention_pattern(mention: str) -> str:
    """A ``LIKE … ESCAPE '\\'`` pattern matching stored JSON text that holds the string
    value ``mention`` (quoted, so ``r-1`` does not match ``r-10``)."""
    like = encode(mention).replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{like}%"


def logged_effects(conn: Connection, tbl: str, mention: str) -> list[tuple[str, str, Effect]]:
    """``(decision_id, decided_at, effect)`` for the effects on ``tbl`` of decisions not
    undone, oldest decision first, in recorded order — of the stored rows whose text
    holds the value ``mention`` (e.g. a neuron id): a superset, check each key."""
    pattern = mention_pattern(mention)
    rows = driver(conn).execute(
        "SELECT e.decision_id, d.decided_at, e.tbl, e.op, e.key_json, e.before_json, "
        "e.after_json FROM brainview_effect e JOIN brainview_decision d "
        "ON d.id = e.decision_id WHERE e.tbl = ? AND d.undone_at IS NULL AND "
        "(e.key_json LIKE ? ESCAPE '\\' OR e.before_json LIKE ? ESCAPE '\\' "
        "OR e.after_json LIKE ? ESCAPE '\\') ORDER BY d.decided_at, e.decision_id, e.seq",
        (tbl, pattern, pattern, pattern),
    )
    return [(did, at, e) for did, at, *row in rows.fetchall() for e in unpack(*row)]
