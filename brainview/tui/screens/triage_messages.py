"""Messages of the triage screen: workers post them, handlers apply them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from brainview.services.review.detail import ProposalDetail
    from brainview.services.review.queue import QueueRow


@dataclass
class QueueLoaded(Message):
    """A page of the queue is ready."""

    rows: list[QueueRow]
    total: int
    signature: tuple[int, int, int]
    keep: str | None
    query: tuple[str, str] = ("", "")
    """``(sort, filter)`` it was read with: a page for an older query is dropped."""
    lifecycle: int = 0
    """:func:`brainview.services.review.flags.lifecycle_mark` as of this read."""
    last: Any = None
    """The project's last decision unit (:class:`~brainview.services.review.undo_offer.
    LastUnit`) or ``None``: what ``u`` offers when this session decided nothing."""


@dataclass
class QueueExtended(Message):
    """The next page of the queue is ready (rows start at ``offset``)."""

    rows: list[QueueRow]
    total: int
    offset: int


@dataclass
class DetailLoaded(Message):
    """The highlighted proposal's context is ready."""

    detail: ProposalDetail


@dataclass
class DecisionPersisted(Message):
    """Decisions were committed (one per proposal)."""

    results: list[Any]
    verdict: str


@dataclass
class AcceptNeedsConfirm(Message):
    """An accept found flagged proposals nobody confirmed: ask before writing anything."""

    ids: list[str]
    seconds: float
    flagged: list[Any]
    """:class:`~brainview.services.review.flags.Flagged` per flagged proposal."""
    policy_text: str | None = None


@dataclass
class UndoPersisted(Message):
    """A decision unit (one decision, or every decision of a bulk) was undone."""

    proposal_ids: list[str]
    from_session: bool = True
    """It was this session's last unit (else the project's last decision, offered)."""


@dataclass
class ActionFailed(Message):
    """A decision or undo was refused; ``text`` is one line.

    ``ids`` are the proposals a refused decision named: they come back under the cursor
    (and marked again, for a bulk), so the next key acts on them, not on a neighbour."""

    text: str
    ids: tuple[str, ...] = ()
