"""Helpers shared by the command handlers: locating and opening a project, the clock,
the decider's name, time filters and output that is safe on a terminal.

Output rules (documented in ``docs/cli.md``):

* ``--json`` output is one JSON document on stdout.  Piped or redirected it is raw UTF-8
  (JSON escapes C0 controls itself); on a terminal every non-ASCII character is escaped
  too (``\\u009b``), so no C1 control, bidi override or escape sequence from a brain
  ever reaches the terminal.
* Human output passes every brain string through :mod:`brainview.core.safe_text`.
"""

from __future__ import annotations

import getpass
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from brainview.errors import UsageError

if TYPE_CHECKING:
    import argparse

    from brainview.services.project import Project
    from brainview.services.session import Session
    from brainview.store.discovery import BrainPaths


def paths_of(args: argparse.Namespace) -> BrainPaths:
    """Where the brains are: positional PATH or ``-C/--project``, ``--user``, ``--agent``."""
    from brainview.store.discovery import discover

    positional = getattr(args, "path", None)
    option = getattr(args, "project", None)
    if positional is not None and option is not None:
        raise UsageError("give the project either as PATH or with -C/--project, not both")
    return discover(positional or option, user=args.user, agent=args.agent)


@contextmanager
def open_project(args: argparse.Namespace) -> Iterator[Project]:
    """Open both brains for reading; closed on exit.  Writes go through
    :func:`session_of`: a face never opens a brain for writing."""
    from brainview.services.project import Project

    with Project.open(paths_of(args)) as project:
        yield project


@contextmanager
def session_of(args: argparse.Namespace) -> Iterator[Session]:
    """The command's :class:`~brainview.services.session.Session`: paths from the
    location flags, the project's config, ``BRAINVIEW_NOW`` or the wall clock, and
    ``--decider``/``--actor`` (else config ``review.decider``, else the OS user).
    Recovery notes go to stderr; every connection is closed on exit."""
    with session_in(args, paths_of(args)) as session:
        yield session


@contextmanager
def session_in(args: argparse.Namespace, paths: BrainPaths) -> Iterator[Session]:
    """:func:`session_of` for ``paths`` (brains found elsewhere than the location flags
    say, e.g. a ``.learnings/`` tree's project), with that project's config."""
    from brainview.config import load
    from brainview.services.session import Session

    with Session.start(
        paths,
        config=load(paths.config_path),
        clock=now,
        decider=getattr(args, "decider", None),
        os_user=os_user,
    ) as session:
        session.on_note = note
        yield session


def now() -> datetime:
    """The command's "now": ``BRAINVIEW_NOW`` (ISO 8601) when set, else the wall clock.

    Freezing it makes scripted runs reproducible (R values, ``created_at`` defaults,
    decision times); it is what the tests use.
    """
    fixed = os.environ.get("BRAINVIEW_NOW")
    if not fixed:
        return datetime.now(UTC).replace(microsecond=0)
    from brainview.core.fsrs_math import parse_ts

    try:
        return parse_ts(fixed)
    except (ValueError, IndexError):
        raise UsageError(f"BRAINVIEW_NOW is not an ISO 8601 timestamp: {fixed!r}") from None


def os_user() -> str:
    """The login name, or ``maintainer`` when the container has none."""
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name in some containers
        return "maintainer"


def load_config(args: argparse.Namespace):  # noqa: ANN201 - brainview.config.Config
    """The effective config (user file, then the project's ``.spikuit/brainview.toml``)."""
    from brainview.config import load

    return load(paths_of(args).config_path)


def parse_when(value: str, *, flag: str, clock: datetime) -> str:
    """A ``--since``/``--until`` value as a stored-timestamp string.

    Accepts ISO 8601 dates or datetimes (any of the brain spellings; naive = UTC) and
    relative ages such as ``30m``, ``12h``, ``7d``, ``2w`` (that long before now).
    """
    from brainview.core.when import parse_when as parse

    try:
        return parse(value, clock)
    except ValueError as err:
        raise UsageError(f"{flag}: {err}") from None


def stdout_is_terminal() -> bool:
    """Whether stdout is an interactive terminal (escape everything there)."""
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def emit_json(data: object, *, sort_keys: bool = False) -> None:
    """One strict JSON document on stdout: on a terminal indented for people and
    ASCII-escaped, otherwise (piped) compact on one line in raw UTF-8; a non-finite
    number a brain holds is written as ``null``."""
    from brainview.core.json_strict import dumps

    tty = stdout_is_terminal()
    text = dumps(data, ensure_ascii=tty, sort_keys=sort_keys, indent=2 if tty else None)
    sys.stdout.write(text + "\n")


def emit_lines(lines: list[str]) -> None:
    """Human output: lines already made safe by the caller."""
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")


def note(message: str) -> None:
    """A one-line remark on stderr (progress, what was written)."""
    print(f"brainview: {message}", file=sys.stderr)


def cell(value: object, limit: int = 60) -> str:
    """Untrusted text for one line of human output: cleaned, single-line, truncated."""
    from brainview.core.safe_text import one_line

    return one_line(None if value is None else str(value), limit)


def fmt_float(value: float | None, digits: int = 2) -> str:
    """A number for a table cell, ``—`` when absent."""
    return "—" if value is None else f"{value:.{digits}f}"
