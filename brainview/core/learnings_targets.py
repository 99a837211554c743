"""Which files a ``learning_tier`` move may read and write: the layout's, nothing else.

Pure.  The tier rules (:mod:`~.learnings_tiers`) move a line between the files the
self-improving layouts define (:func:`~.learnings_parse.classify`), and only these
pairs are allowed, checked when a proposal is queued (intake) and again when it is
accepted (with the entry's recorded file and skill):

* **promote** — a WARM file → the HOT file (``HOT.md`` or ``memory.md``);
* **demote** — the HOT file → a WARM file (at accept: the entry's skill's own file);
* **archive** — a WARM file ``X`` → ``archive/X``;
* **graduate** — the HOT file → ``../AGENTS.md`` beside the tree;
* **retire** — a HOT or WARM file → ``archive/invalidated.md``.

A block entry (``block``: true) stays in its file and moves by its status: only
**graduate** (from a HOT or WARM file) and **retire** apply to it.

A layout file is a ``*.md`` path of plain names (no dot-name, no control or invisible
character, not ``index.md``/``README.md`` at the top).
"""

from __future__ import annotations

from brainview.core.learnings_parse import COLD, HOT, HOT_FILES, WARM, classify, home_file
from brainview.core.learnings_tiers import (
    AGENTS_FILE,
    ARCHIVE,
    DEMOTE,
    GRADUATE,
    INVALIDATED_FILE,
    PROMOTE,
    RETIRE,
)
from brainview.core.text_rules import name_problem

SOURCE_TIERS = {PROMOTE: (WARM,), DEMOTE: (HOT,), ARCHIVE: (WARM,), GRADUATE: (HOT,),
                RETIRE: (HOT, WARM)}  # fmt: skip
"""The tier a move's source file must have, by action."""
BLOCK_SOURCE_TIERS = {GRADUATE: (HOT, WARM), RETIRE: (HOT, WARM)}
"""The same for a block entry (its skill promotes a pending block from its WARM file)."""


def layout_tier(rel: str) -> str | None:
    """The tier of a file the layout defines (``None``: not such a file)."""
    if name_problem(rel) or "\\" in rel:
        return None
    kind = classify(rel)
    return None if kind is None else kind[1]


def move_problem(
    action: str, source: str, target: str, *, skill: str | None = None,
    hot_file: str | None = None, block: bool = False,
) -> tuple[str, str] | None:  # fmt: skip
    """``(field, why)`` when moving a line of ``source`` to ``target`` is not a move
    ``action`` may make; ``None`` when it is.  ``skill`` (the entry's) and ``hot_file``
    (the tree's), when known, pin a demotion's and a promotion's target exactly."""
    want = (BLOCK_SOURCE_TIERS if block else SOURCE_TIERS).get(action)
    if want is None:
        if block and action in SOURCE_TIERS:
            return "action", f"a block entry moves only by {' or '.join(BLOCK_SOURCE_TIERS)}"
        return "action", f"unknown action {action!r}"
    tier = layout_tier(source)
    if tier not in want:
        return "source", f"must be a {' or '.join(want)} file of the .learnings layout"
    if target != AGENTS_FILE and layout_tier(target) is None:
        return "target", "must be a file of the .learnings layout"
    expected = _expected(action, source, skill, hot_file)
    if expected is not None:
        return None if target == expected else ("target", f"must be {expected} for {action}")
    if action == PROMOTE:
        if target not in HOT_FILES:
            return "target", f"must be {' or '.join(HOT_FILES)} for {action}"
        return None
    if layout_tier(target) != WARM or target in HOT_FILES:  # demote, skill unknown
        return "target", f"must be a WARM file of the .learnings layout for {action}"
    return None


def _expected(action: str, source: str, skill: str | None, hot_file: str | None) -> str | None:
    """The one target ``action`` allows, when it is known."""
    if action == ARCHIVE:
        return f"archive/{source}"
    if action == GRADUATE:
        return AGENTS_FILE
    if action == RETIRE:
        return INVALIDATED_FILE
    if action == PROMOTE and hot_file is not None:
        return hot_file if hot_file in HOT_FILES else HOT_FILES[0]
    if action == DEMOTE and skill is not None:
        return home_file(skill)
    return None


__all__ = ["COLD", "SOURCE_TIERS", "layout_tier", "move_problem"]
