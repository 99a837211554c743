"""Outcomes from the other skills: a tutor hint or a QABot answer that succeeded or
failed, with the reflections it consulted (pure shape checks and texts).

An outcome is recorded as a proposal row of kind :data:`OUTCOME_KIND`, decided at once
(success = accept, failure = reject) by :mod:`brainview.services.outcome`; it is never
proposed, queued or applied.  The report's JSON shape (``docs/curator.md``)::

    {"id": "hint-2027-01-10-42", "skill": "tutor", "result": "failure",
     "situation": "one line: what was tried and what happened",
     "consulted": [{"reflection": "r-…", "stance": "support", "note": "optional"}],
     "lesson": "optional: the lesson to write on failure", "runtime": "optional"}
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

from brainview.core.grading import STANCES
from brainview.core.params import ParamError
from brainview.core.safe_text import clean
from brainview.core.text_rules import text_problem

OUTCOME_KIND = "outcome"
"""The ``brainview_proposal.kind`` of a recorded outcome (never a proposable kind)."""
SKILLS: tuple[str, ...] = ("tutor", "qabot")
RESULTS: tuple[str, ...] = ("success", "failure")
VERDICT = {"success": "accept", "failure": "reject"}
"""How an outcome is decided: the grading table then does the rest."""
RESULT_OF = {v: k for k, v in VERDICT.items()}
NOUN = {"tutor": "hint", "qabot": "answer"}
KEYS = frozenset({"id", "skill", "result", "situation", "consulted", "lesson", "runtime"})
MAX_ID = 128
MAX_SITUATION = 2_000
MAX_LESSON = 10_000
MAX_NOTE = 10_000
MAX_CONSULTED = 500

Skill = Literal["tutor", "qabot"]
Result = Literal["success", "failure"]
Consulted = tuple[str, str, str | None]
"""``(reflection id, stance, note)``."""


def _plain(value: str) -> bool:
    """No control, bidi or invisible character (identifiers are shown everywhere)."""
    return clean(value, multiline=False) == value


def _fail(fld: str, reason: str) -> ParamError:
    return ParamError(f"outcome.{fld}", reason)


def _name(value: object, fld: str, limit: int) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        raise _fail(fld, f"must be printable text of at most {limit} characters")
    if not _plain(value):
        raise _fail(fld, "contains control, bidi or invisible characters")
    return value


def check_decider(decider: object) -> str:
    """A decider name as the other write paths take it: short printable text."""
    if not isinstance(decider, str) or not decider.strip() or len(decider) > MAX_ID:
        raise ParamError("decider", f"must be a non-empty name of at most {MAX_ID} characters")
    if not _plain(decider):
        raise ParamError("decider", "contains control, bidi or invisible characters")
    return decider


@dataclass(frozen=True)
class OutcomeReport:
    """One outcome as the caller reports it (checked by :meth:`checked`)."""

    id: str
    skill: Skill
    result: Result
    situation: str
    consulted: list[Consulted] = field(default_factory=list)
    lesson: str | None = None
    """The lesson to write on failure (default: derived from the situation)."""
    runtime: str | None = None
    """Optional model or agent version that produced the hint or answer."""

    @classmethod
    def from_json(cls, raw: object) -> OutcomeReport:
        """Parse and check a JSON object (``id`` generated when absent); ParamError names
        the first bad field."""
        if not isinstance(raw, dict):
            raise ParamError("outcome", "must be a JSON object")
        extra = sorted(set(raw) - KEYS)
        if extra:
            raise _fail(extra[0], f"unknown field (one of {', '.join(sorted(KEYS))})")
        consulted = raw.get("consulted", [])
        if not isinstance(consulted, list):
            raise _fail("consulted", "must be a list")
        items: list[Any] = []
        for j, item in enumerate(consulted):
            if isinstance(item, str):
                item = {"reflection": item}
            if not isinstance(item, dict):
                raise _fail(f"consulted[{j}]", "must be an object with a reflection id")
            unknown = sorted(set(item) - {"reflection", "stance", "note"})
            if unknown:
                raise _fail(f"consulted[{j}].{unknown[0]}", "unknown field")
            items.append((item.get("reflection"), item.get("stance", "support"), item.get("note")))
        report = cls(
            id=raw.get("id") or new_id(),
            skill=raw.get("skill"),  # type: ignore[arg-type]
            result=raw.get("result"),  # type: ignore[arg-type]
            situation=raw.get("situation"),  # type: ignore[arg-type]
            consulted=items,
            lesson=raw.get("lesson"),
            runtime=raw.get("runtime"),
        )
        return report.checked()

    def checked(self) -> OutcomeReport:
        """This report if every field is well formed; else ParamError naming the field."""
        _name(self.id, "id", MAX_ID)
        if self.skill not in SKILLS:
            raise _fail("skill", f"must be one of {', '.join(SKILLS)}")
        if self.result not in RESULTS:
            raise _fail("result", f"must be one of {', '.join(RESULTS)}")
        s = self.situation
        if not isinstance(s, str) or not s.strip() or len(s) > MAX_SITUATION:
            raise _fail("situation", f"required one line of at most {MAX_SITUATION} characters")
        if "\n" in s or "\r" in s:
            raise _fail("situation", "must be one line")
        _free_text(s, "situation")
        if self.lesson is not None and (
            not isinstance(self.lesson, str) or not self.lesson.strip()
            or len(self.lesson) > MAX_LESSON
        ):  # fmt: skip
            raise _fail("lesson", f"must be non-empty text of at most {MAX_LESSON} characters")
        if self.lesson is not None:
            _free_text(self.lesson, "lesson")
        if self.runtime is not None:
            _name(self.runtime, "runtime", MAX_ID)
        _check_consulted(self.consulted)
        return self

    @property
    def verdict(self) -> str:
        """``accept`` for a success, ``reject`` for a failure."""
        return VERDICT[self.result]

    def params(self) -> dict[str, Any]:
        """What the proposal row's ``params_json`` holds (the lesson only when given)."""
        out: dict[str, Any] = {"result": self.result, "situation": self.situation}
        if self.lesson is not None:
            out["lesson"] = self.lesson
        return out

    def summary(self) -> str:
        """One line for lists and trails: ``tutor hint failed: <situation>``."""
        verb = "succeeded" if self.result == "success" else "failed"
        return f"{self.skill} {NOUN[self.skill]} {verb}: {self.situation}"[:200]


def _check_consulted(items: object) -> None:
    if not isinstance(items, list):
        raise _fail("consulted", "must be a list")
    if len(items) > MAX_CONSULTED:
        raise _fail("consulted", f"more than {MAX_CONSULTED} reflections")
    seen: set[str] = set()
    for j, item in enumerate(items):
        where = f"consulted[{j}]"
        if not isinstance(item, tuple | list) or len(item) != 3:
            raise _fail(where, "must be (reflection, stance, note)")
        rid, stance, note = item
        if not isinstance(rid, str) or not rid or len(rid) > 256:
            raise _fail(f"{where}.reflection", "required reflection id")
        if rid in seen:
            raise _fail(f"{where}.reflection", f"{rid} consulted twice")
        seen.add(rid)
        if stance not in STANCES:
            raise _fail(f"{where}.stance", f"must be one of {', '.join(STANCES)}")
        if note is not None and (not isinstance(note, str) or len(note) > MAX_NOTE):
            raise _fail(f"{where}.note", f"must be text of at most {MAX_NOTE} characters")
        if note is not None:
            _free_text(note, f"{where}.note")


def _free_text(value: str, fld: str) -> None:
    """The free-text rule (:mod:`brainview.core.text_rules`): no ESC, OSC, C1, bidi, NUL."""
    why = text_problem(value)
    if why is not None:
        raise _fail(fld, why)


def new_id() -> str:
    """A fresh outcome id (retries are only safe with an id the caller chose)."""
    return f"out-{uuid.uuid4().hex[:12]}"


def lesson_text(report: OutcomeReport) -> str:
    """The new reflection a failure writes: what failed, and the lesson."""
    noun = NOUN[report.skill]
    lines = [f"Failed {report.skill} {noun} (outcome {report.id}): {report.situation}"]
    if report.lesson is not None:
        lines.append(f"Lesson: {report.lesson.strip()}")
    else:
        n = sum(1 for _r, stance, _n in report.consulted if stance == "support")
        what = f"the {n} lesson(s) it leaned on" if n else f"this {noun}"
        lines.append(f"Lesson: {what} did not work in this situation; try something else.")
    return "\n".join(lines)


def result_word(kind: str | None, verdict: str | None) -> str | None:
    """``success``/``failure`` for an outcome's decision, the verdict otherwise."""
    if kind == OUTCOME_KIND and verdict in RESULT_OF:
        return RESULT_OF[verdict]
    return verdict
