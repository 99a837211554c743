"""Bindings whose refusals explain themselves.

A verb that cannot apply here is hidden from the footer (``check_action`` returns
``False``), and Textual then tries the next binding of the same key: a hidden *twin*
with the same key and id runs ``why(…)`` and says why the verb was refused.  Sharing
the id means a remap in ``[keys]`` moves both (and is no clash).
"""

from __future__ import annotations

from textual.binding import Binding


def explained(binding: Binding, why: str) -> list[Binding]:
    """``binding`` followed by its hidden twin that runs ``why`` (an action string)."""
    twin = Binding(
        binding.key,
        why,
        binding.description,
        show=False,
        id=binding.id,
        tooltip=binding.tooltip,
    )
    return [binding, twin]


def unique(bindings: list[Binding]) -> list[Binding]:
    """The bindings without their twins (first of each id), for docs and help."""
    seen: set[str] = set()
    out: list[Binding] = []
    for b in bindings:
        if b.id and b.id in seen:
            continue
        if b.id:
            seen.add(b.id)
        out.append(b)
    return out
