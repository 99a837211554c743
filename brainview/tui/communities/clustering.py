"""Messages of the communities screen: thread workers post them, handlers apply them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from brainview.services.communities import (
        ClusterCurves,
        CommunityData,
        CommunityRow,
        MemberRow,
    )
    from brainview.services.communities.curves import FadingList


@dataclass
class CommunitiesLoaded(Message):
    """The partition's per-reflection data and one sorted page of communities."""

    data: CommunityData
    rows: list[CommunityRow]
    total: int
    sort: str


@dataclass
class ClusteringProgress(Message):
    """A clustering run reached a stage (bursts collapse: only the latest counts)."""

    stage: str
    fraction: float

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ClusteringProgress)


@dataclass
class ClusteringStopped(Message):
    """A clustering run ended: ``outcome`` is ``done``, ``cancelled`` or an error line."""

    outcome: str
    replaced: bool = False
    """Whether a stale partition was on screen before (then say it was updated)."""


@dataclass
class ClusterLoaded(Message):
    """Members and curves of the highlighted community."""

    number: int
    members: list[MemberRow]
    total: int
    curves: ClusterCurves
    mark: int = 0
    """The lifecycle fingerprint read before the members' states."""


@dataclass
class FadingLoaded(Message):
    """The fading list is ready."""

    fading: FadingList
    mark: int = 0
    """The lifecycle fingerprint read before the rows' states."""


@dataclass
class MemberStatesLoaded(Message):
    """Lifecycle states read again for the reflections on screen (after another process,
    or this console, challenged, invalidated or reinstated some)."""

    mark: int
    states: dict[str, str]
    """Reflection id → state now (ids gone from the brain read as ``retired``)."""


@dataclass
class FadingDecided(Message):
    """A rescue / let-go decision was recorded (``decision_id``) or undone (``None``)."""

    reflection_id: str
    action: str
    decision_id: int | None


@dataclass
class CommunitiesFailed(Message):
    """A read or decision failed; ``text`` is one line."""

    what: str
    text: str
