"""Held-back drafts: what a curator withdrew or rewrote after recall (pure shape checks,
the verdicts' grading and the lane's choice).

A report's JSON shape (``docs/curator.md``)::

    {"id": "optional, your id (retries are safe)", "action": "withdrawn",
     "draft": {<a proposal object, as it would have been proposed>},
     "rewritten_as": "the proposal id it became (only for rewritten)",
     "recall": "rc-… (the recall that made you hold it back)",
     "lessons": [{"reflection": "r-…", "stance": "oppose"}],
     "reason": "optional one line", "skill": "curator", "runtime": "optional",
     "confidence": 0.6}

``confidence`` (optional, 0 to 1): how sure the curator was that the lessons were right
to stop the draft; the lane shows the closest calls first.

At least one lesson must ``oppose`` it: a draft held back for no lesson's sake is not a
held-back draft.  The draft is shape-checked as a proposal (its id, if any, is kept in
the record only: if a maintainer says it should have been proposed, it is queued as
``hb-…`` → ``p-<held-back id>``).

**Verdicts** grade the lessons with the proposal table (contracts §5):
``should_have_proposed`` is an accept of the draft (an opposing lesson gets *miss*, a
supporting one *strong*); ``rightly_held_back`` a reject (opposing *strong*,
supporting *miss*); annotations get nothing.

**The lane** (:func:`why_shown`): every undecided draft opposed by a *weakly
corroborated* lesson — fewer than ``min_confirmations`` distinct deciders confirmed it
(a standing decision in which its stance won, or a standing "rightly held back") —
plus a seeded random sample (``sample_rate``, the same for an id every time) of the
rest.  Drafts held back by a lesson that carries a suspicion signal (overruled before,
holding drafts back unconfirmed, …) come first (:func:`tier`): a maintainer's minutes
go where a lesson is most likely wrong.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from brainview.core.grading import STANCES, grade_for
from brainview.core.params import ParamError
from brainview.core.refs import format_ref
from brainview.core.safe_text import clean
from brainview.core.text_rules import text_problem

ACTIONS: tuple[str, ...] = ("withdrawn", "rewritten")
VERDICTS: tuple[str, ...] = ("should_have_proposed", "rightly_held_back")
AS_DECISION: dict[str, Literal["accept", "reject"]] = {
    "should_have_proposed": "accept",
    "rightly_held_back": "reject",
}
"""A verdict graded as the proposal verdict it amounts to."""
KEYS = frozenset(
    {
        "id",
        "action",
        "draft",
        "rewritten_as",
        "recall",
        "lessons",
        "reason",
        "skill",
        "runtime",
        "confidence",
    }
)
MAX_ID = 128
MAX_REASON = 2_000
MAX_LESSONS = 100

Verdict = Literal["should_have_proposed", "rightly_held_back"]


def _fail(fld: str, reason: str) -> ParamError:
    return ParamError(f"held_back.{fld}", reason)


def _name(value: object, fld: str, *, required: bool = True) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_ID:
        raise _fail(fld, f"must be printable text of at most {MAX_ID} characters")
    if clean(value, multiline=False) != value:
        raise _fail(fld, "contains control, bidi or invisible characters")
    return value


@dataclass(frozen=True)
class HeldBackReport:
    """One held-back draft as the curator reports it (checked by :meth:`from_json`)."""

    id: str
    action: str
    draft: dict[str, Any]
    lessons: list[tuple[str, str]]
    """``(reflection, stance)`` in the order given."""
    rewritten_as: str | None = None
    recall: str | None = None
    reason: str | None = None
    skill: str = "curator"
    runtime: str | None = None
    confidence: float | None = None
    """How sure the curator was that holding it back was right (0 to 1)."""

    @classmethod
    def from_json(cls, raw: object) -> HeldBackReport:
        """Parse and check a JSON object (``id`` generated when absent); ParamError
        names the first bad field.  The draft's own fields are checked by intake's
        parser (:func:`brainview.services.held_back.parse_report`)."""
        if not isinstance(raw, dict):
            raise ParamError("held_back", "must be a JSON object")
        extra = sorted(set(raw) - KEYS, key=str)
        if extra:
            raise _fail(str(extra[0])[:40], f"unknown field (one of {', '.join(sorted(KEYS))})")
        hid = _name(raw.get("id") or new_id(), "id")
        action = raw.get("action")
        if action not in ACTIONS:
            raise _fail("action", f"must be one of {', '.join(ACTIONS)}")
        draft = raw.get("draft")
        if not isinstance(draft, dict):
            raise _fail("draft", "must be a proposal object")
        rewritten = _name(raw.get("rewritten_as"), "rewritten_as", required=False)
        if action == "withdrawn" and rewritten is not None:
            raise _fail("rewritten_as", "only a rewritten draft names what it became")
        recall = _name(raw.get("recall"), "recall", required=False)
        reason = raw.get("reason")
        if reason is not None:
            if not isinstance(reason, str) or len(reason) > MAX_REASON:
                raise _fail("reason", f"must be text of at most {MAX_REASON} characters")
            why = text_problem(reason)
            if why is not None:
                raise _fail("reason", why)
        skill = _name(raw.get("skill", "curator"), "skill")
        runtime = _name(raw.get("runtime"), "runtime", required=False)
        lessons = _lessons(raw.get("lessons"))
        return cls(
            str(hid), str(action), dict(draft), lessons, rewritten, recall, reason or None,
            str(skill), runtime, _confidence(raw.get("confidence")),
        )  # fmt: skip

    @property
    def opposing(self) -> list[str]:
        """The lessons that opposed the draft."""
        return [r for r, s in self.lessons if s == "oppose"]


def _confidence(raw: object) -> float | None:
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not 0.0 <= raw <= 1.0:
        raise _fail("confidence", "must be a number from 0 to 1")
    return float(raw)


def _lessons(raw: object) -> list[tuple[str, str]]:
    if not isinstance(raw, list) or not raw:
        raise _fail("lessons", "must list the lessons that opposed the draft")
    if len(raw) > MAX_LESSONS:
        raise _fail("lessons", f"more than {MAX_LESSONS} lessons")
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for j, item in enumerate(raw):
        where = f"lessons[{j}]"
        if isinstance(item, str):
            item = {"reflection": item, "stance": "oppose"}
        if not isinstance(item, dict):
            raise _fail(where, "must be an object with a reflection id and a stance")
        unknown = sorted(set(item) - {"reflection", "stance"}, key=str)
        if unknown:
            raise _fail(f"{where}.{str(unknown[0])[:40]}", "unknown field")
        rid = _name(item.get("reflection"), f"{where}.reflection")
        stance = item.get("stance", "oppose")
        if stance not in STANCES:
            raise _fail(f"{where}.stance", f"must be one of {', '.join(STANCES)}")
        if rid in seen:
            raise _fail(f"{where}.reflection", f"{rid} named twice")
        seen.add(str(rid))
        out.append((str(rid), str(stance)))
    if not any(s == "oppose" for _r, s in out):
        raise _fail("lessons", "no lesson opposes the draft (a stance must be oppose)")
    return out


def new_id() -> str:
    """A fresh held-back id (retries are only safe with an id the caller chose)."""
    return f"hb-{uuid.uuid4().hex[:12]}"


def proposal_id_for(held_back_id: str) -> str:
    """The id its draft is queued under when it should have been proposed."""
    return f"p-{held_back_id}"


def overruled_lesson(
    held_back_id: str,
    kind: str,
    summary: str,
    neurons: list[str],
    rationale: str,
    reason: str | None,
    opposing: list[str],
) -> str:
    """The lesson a "should have been proposed" verdict writes: what was held back, in
    the curator's and the maintainer's words, and which lessons were wrong about it — so
    the next draft like it recalls a lesson on its side, as a rejection writes one
    against (no negation next to the action's words: recall reads it as support)."""
    lines = [f"Accepted on review after the curator held it back ({held_back_id}, {kind}): "
             f"{summary}"]  # fmt: skip
    if neurons:
        lines.append("User neurons: " + " ".join(format_ref(n) for n in neurons))
    lines.append(f"Curator rationale: {rationale.strip() or '(none given)'}")
    why = (reason or "").strip() or "no reason given"
    lines.append(f"Maintainer: should have been proposed — {why}")
    if opposing:
        wrong = ", ".join(opposing)
        lines.append(f"Held back by lessons that were wrong about this case: {wrong}")
    return "\n".join(lines)


def grade_of(verdict: str, stance: str) -> int | None:
    """The grade a verdict fires into one of the draft's lessons (``None``: no event)."""
    return grade_for(stance, AS_DECISION[verdict])


def check_verdict(verdict: object) -> Verdict:
    """A verdict name (``should-have-proposed`` spelt with dashes is taken too)."""
    name = str(verdict).replace("-", "_") if isinstance(verdict, str) else ""
    if name not in VERDICTS:
        raise ParamError("verdict", f"must be one of {', '.join(VERDICTS)}")
    return name  # type: ignore[return-value]


# -- the lane ----------------------------------------------------------------------------


def sampled(held_back_id: str, rate: float, seed: int) -> bool:
    """Whether the random check picks this draft: a hash of ``seed`` and the id, so the
    same id is picked (or not) every time and on every machine."""
    if rate <= 0.0:
        return False
    digest = hashlib.sha256(f"{seed}:{held_back_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < rate


SUSPECT = "opposed by a suspect lesson"
WEAK = "weakly corroborated"
"""How :func:`why_shown`'s lines begin, by :func:`tier` (suspect first)."""


def why_shown(
    held_back_id: str,
    opposing: list[str],
    confirmed: dict[str, int],
    *,
    min_confirmations: int,
    sample_rate: float,
    seed: int,
    suspect: Mapping[str, str] | None = None,
) -> str | None:
    """Why the lane shows an undecided draft, in one line (``None``: it does not).

    ``confirmed``: each opposing lesson's distinct confirming deciders; ``suspect``:
    opposing lessons with a suspicion signal → its reason (they come first)."""
    flagged = [r for r in opposing if suspect and r in suspect]
    if flagged and suspect:
        more = f" (+{len(flagged) - 1})" if len(flagged) > 1 else ""
        return f"{SUSPECT}: {flagged[0]}{more} — {suspect[flagged[0]]}"
    weak = [r for r in opposing if confirmed.get(r, 0) < min_confirmations]
    if weak:
        counts = ", ".join(f"{r} {confirmed.get(r, 0)}" for r in weak[:3])
        more = f" (+{len(weak) - 3})" if len(weak) > 3 else ""
        return f"{WEAK}: {counts}{more} confirmation(s), fewer than {min_confirmations}"
    if sampled(held_back_id, sample_rate, seed):
        return f"random check ({sample_rate:.0%} of the rest)"
    return None


def lane_order(why: str | None, confidence: float | None) -> tuple[int, float]:
    """Sort key of an undecided draft in the lane: its :func:`tier`, then the closest
    call first (the curator's ``confidence``; a draft reported without one last)."""
    return tier(why), 1.0 if confidence is None else confidence


def tier(why: str | None) -> int:
    """The lane's order: drafts a suspect lesson held back (0), then those a weakly
    corroborated one did (1), then the random check (2); not shown: 3."""
    if why is None:
        return 3
    return 0 if why.startswith(SUSPECT) else 1 if why.startswith(WEAK) else 2
