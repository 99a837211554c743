"""A self-improving agent's ``.learnings/`` tree as an agent brain (``docs/learnings.md``).

* :mod:`.importing` — every entry of the tree becomes a reflection (re-import is
  idempotent, picks up new lines, follows moved ones, refuses tombstoned text);
* :mod:`.planning` — the tier rules' moves, queued as ``learning_tier`` proposals;
* :mod:`.apply` — accepting one rewrites the files inside the decision; undo puts
  them back.
"""
