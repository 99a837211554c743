"""Accepting a ``learning_tier`` proposal: the Markdown files and the tier, together.

Inside the decision's agent-brain transaction (:func:`apply_in`, called by
:mod:`brainview.services.review` for this kind) the entry's line is found again in its
file (stale if it is gone), moved — every other byte of both files unchanged — and the
tier row updated through the decision's effect log.  Each file written is first backed
up (``.brainview-backups/<decision id>/``) and recorded with its old and new bytes in
``brainview_learning_write``.  Writes happen inside :func:`staged`: if the transaction
then fails, the old bytes are put back, so the decision is all or nothing.

Undo (:func:`undo_in`, before the effect log is reverted) puts the old bytes back,
newest write first — refused, with nothing changed, when a file no longer holds what
the decision wrote (the agent or a person edited it since).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.core.learnings_edit import Files, Move, Stale, apply_moves, diff_lines
from brainview.core.learnings_kinds import LEARNING_KIND
from brainview.core.learnings_parse import split_lines
from brainview.core.learnings_targets import layout_tier, move_problem
from brainview.core.learnings_tiers import AGENTS_FILE, GRADUATE, PROMOTED_MARK, RETIRE
from brainview.core.safe_text import one_line
from brainview.errors import BadPathError, BrainviewError, ConflictError
from brainview.services.learnings.tree import Tree, tree_of
from brainview.store import learnings_files as lfiles
from brainview.store import learnings_rows as lrows
from brainview.store.effects import EffectLog

staged = lfiles.staged
"""Wrap a decision's (or an undo's) transaction: files are put back if it fails."""


def _tree(conn: Connection) -> tuple[Tree, str]:
    found = tree_of(conn)
    if found is None:
        raise ConflictError("no .learnings tree imported in this agent brain")
    return found


def _planned(conn: Connection, params: dict[str, Any]) -> tuple[Tree, dict[str, Any], Move]:
    """The tree, the entry's row and the move, as things stand (ConflictError: stale;
    BadPathError: the move writes a file the layout does not allow)."""
    tree, hot_file = _tree(conn)
    row = lrows.entry(conn, str(params["entry"]))
    if row is None:
        raise ConflictError(f"entry {params['entry']} was never imported")
    if row["file"] != params["source"] or row["tier"] != params["tier_from"]:
        raise ConflictError(
            f"entry {params['entry']} is now {row['tier']} in {row['file']} (planned from "
            f"{params['tier_from']} in {params['source']})"
        )
    action, target = str(params["action"]), str(params["target"])
    block = bool(row["block"])
    if bool(params.get("block", False)) != block:
        kind = "a block entry" if block else "a line entry"
        raise ConflictError(f"entry {params['entry']} is {kind} now; plan again")
    problem = move_problem(action, str(row["file"]), target, skill=str(row["skill"]),
                           hot_file=hot_file, block=block)  # fmt: skip
    if problem is not None:
        raise BadPathError(
            f"{action} of {params['entry']} to {one_line(target, 120)!r} refused: "
            f"{problem[0]} {problem[1]}; nothing written"
        )
    note: tuple[str, ...] = ()
    if params["action"] == RETIRE:
        note = (f"invalidated: {params.get('reason') or 'no reason given'}",)
    status: str | None = None
    marker: tuple[str, ...] = ()
    if block:  # the skill's own move: the block stays, its **Status** changes
        status = "promoted" if action == GRADUATE else "wont_fix"
        marker = (PROMOTED_MARK,) if action == GRADUATE else ()
    move = Move(row["file"], int(row["line"]), bytes(row["raw"]), target, note,
                status=status, marker=marker)  # fmt: skip
    return tree, row, move


def _new_bytes(tree: Tree, move: Move) -> tuple[Files, Files]:
    before = {r: lfiles.read_file(tree, r) for r in (move.source, move.target)}
    try:
        after = apply_moves(before, [move])
    except Stale as err:
        raise ConflictError(f"stale: {move.source}: {err}") from None
    return before, after


def preview(conn: Connection, params: dict[str, Any]) -> tuple[list[tuple[str, str, str]], str]:
    """What accepting would write now: preview triples and a one-line summary
    (ConflictError: it cannot be accepted)."""
    tree, row, move = _planned(conn, params)
    before, after = _new_bytes(tree, move)
    lines: list[tuple[str, str, str]] = [
        (f"tier of {row['neuron_id']}", str(row["tier"]), str(params["tier_to"]))
    ]
    for rel, sign, text in diff_lines(before, after):
        in_place = move.status is not None and rel == move.source  # a block's status edit
        if before.get(rel) is None and text == "(new file)":
            lines.append((rel, "(absent)", "(new file)"))
        elif in_place:
            lines.append((rel, text, "(replaced)") if sign == "-" else (rel, "", text))
        elif sign == "-":
            lines.append((f"{rel}", text, "(line removed)"))
        else:
            lines.append((f"{rel} (appended)", "", text))
    files = ", ".join(after)
    return lines, f"rewrites {files} in {tree.path} (backups kept; undo restores the bytes)"


def stale_reasons(conn: Connection, items: list[Any]) -> dict[str, str]:
    """Queued ``learning_tier`` item id → why it can no longer be accepted (its line
    left its file, the entry moved tier, the tree is gone)."""
    out: dict[str, str] = {}
    for item in items:
        if item.kind != LEARNING_KIND:
            continue
        try:
            _new_bytes(*_planned(conn, json.loads(item.params_json or "{}"))[::2])
        except ConflictError as err:
            out[item.id] = str(err)
        except (BrainviewError, KeyError, TypeError, ValueError, OSError) as err:
            out[item.id] = f"cannot be checked: {err}"
    return out


def apply_in(log: EffectLog, proposal: dict[str, Any], decision_id: str, now: Any) -> None:
    """Write the accepted move (inside the decision's transaction)."""
    params = json.loads(proposal["params_json"])
    conn = log.conn
    tree, row, move = _planned(conn, params)
    before, after = _new_bytes(tree, move)
    lrows.ensure(conn)
    for seq, (rel, new) in enumerate(after.items()):
        w = lfiles.write(tree, rel, before[rel], new, decision_id, like=move.source)
        log.insert(
            "brainview_learning_write",
            [{"decision_id": decision_id, "seq": seq, "path": rel, "before": w.before,
              "after": w.after, "backup": w.backup}],
        )  # fmt: skip
    changes: dict[str, object] = {"tier": str(params["tier_to"]),
                                  "tier_since": fsrs_math.format_ts(now)}  # fmt: skip
    if move.status is not None:  # a block stays where it is, with its new status
        changes["status"] = move.status
    else:
        target_lines = len(split_lines(after[move.target] or b""))
        changes |= {"file": move.target, "line": max(1, target_lines - len(move.note))}
    log.update("brainview_learning", [(row, changes)])


def undo_in(conn: Connection, decision_id: str) -> int:
    """Put back the files a decision wrote (inside the undo's transaction, before its
    effect log is reverted); returns how many files were restored."""
    writes = lrows.writes_of(conn, decision_id)
    if not writes:
        return 0
    found = tree_of(conn)
    if found is None:
        raise ConflictError("the .learnings tree this decision wrote is no longer recorded")
    tree = found[0]
    for w in writes:  # rows of the agent brain: only the layout's files are put back
        if w["path"] != AGENTS_FILE and layout_tier(str(w["path"])) is None:
            raise BadPathError(
                f"cannot undo {decision_id}: recorded path {one_line(str(w['path']), 120)!r} "
                "is not a file of the .learnings layout; nothing was undone"
            )
    for w in reversed(writes):
        before = None if w["before"] is None else bytes(w["before"])
        after = None if w["after"] is None else bytes(w["after"])
        try:
            lfiles.write(tree, w["path"], after, before, f"undo-{decision_id}")
        except ConflictError:
            raise ConflictError(
                f"cannot undo {decision_id}: {w['path']} was edited since the decision "
                "wrote it; nothing was undone"
            ) from None
    return len(writes)
