"""Which earlier lesson a newly imported ``.learnings`` entry repeats.

"Says the same", first match wins: the same ``Pattern-Key`` (the self-improving-agent
skill's own key for a recurring lesson); a block naming an earlier block of its kind in
``See Also`` (the skill links a repeat that way); a line correction with the same fix
(the words after its arrow, :func:`~brainview.core.learnings_words.fix_words`); or the
same words (:class:`~brainview.core.learnings_groups.Groups`, a block compared by its
summary, not its metadata).  Blocks naming each other in ``See Also`` are also linked
(:meth:`Repeats.see_also_pairs`).
"""

from __future__ import annotations

from typing import Any

from brainview.core.learnings_block_meta import block_marks
from brainview.core.learnings_groups import Groups
from brainview.core.learnings_parse import Entry, block_id_of, compare_text
from brainview.core.learnings_words import fix_words, words


class Repeats:
    """Which group a new entry repeats, by the markers the skills write and by words."""

    def __init__(
        self, known: dict[str, dict[str, Any]], contents: dict[str, str], fresh: dict[str, Entry]
    ) -> None:
        self.by_key: dict[str, str] = {}
        self.by_fix: dict[frozenset[str], str] = {}
        self.by_block: dict[str, str] = {}
        self.see: dict[str, tuple[str, ...]] = {}
        old: dict[str, frozenset[str]] = {}
        for r in known.values():
            nid, text = r["neuron_id"], contents.get(r["neuron_id"], "")
            first = text.split("\n", 1)[0] if r["block"] else text
            old[nid] = words(first)
        self.vocab = {key: words(compare_text(e)) for key, e in fresh.items()}
        self.groups = Groups([*old.values(), *self.vocab.values()])
        for r in known.values():
            nid, text = r["neuron_id"], contents.get(r["neuron_id"], "")
            canonical = r["canonical"] or nid
            self.groups.add(nid, canonical, old[nid])
            if r["block"]:
                key, see = block_marks(text)
                self._remember(nid, canonical, key, None, block_id_of(bytes(r["raw"])), see)
            else:
                self._remember(nid, canonical, None, fix_words(text), None, ())

    def _remember(
        self, nid: str, canonical: str, key: str | None, fix: frozenset[str] | None,
        block: str | None, see: tuple[str, ...],
    ) -> None:  # fmt: skip
        if key is not None:
            self.by_key.setdefault(key, canonical)
        if fix is not None:
            self.by_fix.setdefault(fix, canonical)
        if block is not None:
            self.by_block.setdefault(block, nid)
            self.see[nid] = see

    def find(self, key: str, e: Entry) -> str | None:
        """The canonical entry of the group ``e`` repeats (``None``: a new lesson)."""
        if e.pattern_key is not None and e.pattern_key in self.by_key:
            return self.by_key[e.pattern_key]
        kind = (e.block_id or "").split("-", 1)[0]
        for named in e.see_also:
            nid = self.by_block.get(named)
            if nid is not None and named.split("-", 1)[0] == kind:
                return self.groups.canon.get(nid, nid)
        fix = fix_words(e.text) if e.block_id is None else None
        if fix is not None and fix in self.by_fix:
            return self.by_fix[fix]
        return self.groups.find(self.vocab[key])

    def add(self, nid: str, canonical: str, key: str, e: Entry) -> None:
        self.groups.add(nid, canonical, self.vocab[key])
        fix = fix_words(e.text) if e.block_id is None else None
        self._remember(nid, canonical, e.pattern_key, fix, e.block_id, e.see_also)

    def see_also_pairs(self, new: set[str]) -> set[frozenset[str]]:
        """Blocks naming each other in ``See Also`` where one of them is new."""
        out: set[frozenset[str]] = set()
        for nid, named in self.see.items():
            for other in (self.by_block.get(i) for i in named):
                if other is not None and other != nid and (nid in new or other in new):
                    out.add(frozenset((nid, other)))
        return out
