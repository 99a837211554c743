"""Held-back drafts (issue 29): what a curator withdrew or rewrote after recall, the
lessons that opposed it, and a maintainer's verdict on it.

* :func:`parse_report` / :func:`report_held_back` — the curator's report (CLI
  ``held-back report``, MCP ``report_held_back``, the simulation's curator), stored
  append-only (:mod:`brainview.services.held_back.report`);
* :func:`lane` / :func:`show` — the triage lane: drafts opposed by a weakly
  corroborated lesson plus a seeded random sample of the rest, each with why
  (:mod:`brainview.services.held_back.lane`);
* :func:`decide` / :func:`undo` — "should have been proposed" (queued; the opposing
  lessons graded *miss*) or "rightly held back" (graded *strong*), undone exactly
  (:mod:`brainview.services.held_back.verdict`).
"""

from __future__ import annotations

from brainview.services.held_back.lane import HeldBackItem, Lesson, lane, show
from brainview.services.held_back.report import parse_report, report_held_back
from brainview.services.held_back.verdict import decide, standing_of, undo

__all__ = [
    "HeldBackItem",
    "Lesson",
    "decide",
    "lane",
    "parse_report",
    "report_held_back",
    "show",
    "standing_of",
    "undo",
]
