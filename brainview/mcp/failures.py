"""A tool's error, as the CLI would say it: ``"<kind>: <message>"`` and its exit code.

A :class:`~brainview.errors.BrainviewError` keeps its kind.  A SQLite error that
escaped the services untranslated (a page found corrupt halfway through a query, a
brain locked or made read-only under a long-running server) is named as the store
names it when it opens a brain (:mod:`brainview.store.brain_check`): ``not_a_brain``
for a corrupt, truncated or unreadable file, ``locked``, ``read_only``, ``disk_full``
— never ``internal``.  Only what is left is ``internal`` (exit code 70).

The face never imports ``sqlite3`` or SQLAlchemy: errors are recognised by their
class's module and SQLite's result-code name (``sqlite_errorname``), on the error or
on what it wraps (``orig``, ``__cause__``, ``__context__``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from mcp.types import CallToolResult, TextContent

from brainview.core.safe_text import one_line
from brainview.errors import BrainviewError, ExitCode

if TYPE_CHECKING:
    from brainview.services.project import BrainPaths

_BY_CODE = (  # SQLite result-code names (extended ones start with these), in order
    (("SQLITE_CORRUPT", "SQLITE_NOTADB", "SQLITE_IOERR", "SQLITE_FORMAT"), "not_a_brain"),
    (("SQLITE_BUSY", "SQLITE_LOCKED"), "locked"),
    (("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM"), "read_only"),
    (("SQLITE_FULL",), "disk_full"),
)
_BY_TEXT = (  # the same, from the message, as brain_check.translate_sqlite reads it
    (("file is not a database", "malformed", "not a database", "corrupt", "disk i/o"),
     "not_a_brain"),
    (("locked", "busy"), "locked"),
    (("readonly", "read-only", "unable to open"), "read_only"),
    (("disk is full",), "disk_full"),
)  # fmt: skip
_CODES = {
    "not_a_brain": ExitCode.NOT_A_BRAIN,
    "locked": ExitCode.LOCKED,
    "read_only": ExitCode.READ_ONLY,
    "disk_full": ExitCode.DISK_FULL,
}
_WORDS = {
    "not_a_brain": "truncated or corrupt database",
    "locked": "brain is locked by another process",
    "read_only": "cannot write to the brain: read-only",
    "disk_full": "disk full: nothing was written",
}


def success(data: Any) -> CallToolResult:
    """A tool result: the JSON object as structured content and as text."""
    if isinstance(data, str):
        data = json.loads(data)
    text = json.dumps(data, ensure_ascii=False)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def failure(kind: str, message: str, code: int) -> CallToolResult:
    """A tool error: ``"<kind>: <message>"``, and the CLI's ``--json`` error object."""
    message = one_line(message, 500)
    error = {"error": kind, "message": message, "exit_code": code}
    return CallToolResult(
        content=[TextContent(type="text", text=f"{kind}: {message}")],
        structured_content=error,
        is_error=True,
    )


def _chain(err: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    todo: list[BaseException | None] = [err]
    while todo:
        e = todo.pop(0)
        if e is None or id(e) in seen or len(seen) > 16:
            continue
        seen.add(id(e))
        yield e
        orig = getattr(e, "orig", None)
        todo += [orig if isinstance(orig, BaseException) else None, e.__cause__, e.__context__]


def _is_database_error(err: BaseException) -> bool:
    return any(c.__module__.split(".")[0] in ("sqlite3", "sqlalchemy") for c in type(err).__mro__)


def database_kind(err: BaseException) -> tuple[str, str] | None:
    """``(kind, SQLite's words)`` when ``err`` is, or wraps, a SQLite error we can name."""
    for e in _chain(err):
        if not _is_database_error(e):
            continue
        name = str(getattr(e, "sqlite_errorname", "") or "")
        text = str(e).splitlines()[0] if str(e) else type(e).__name__
        for prefixes, kind in _BY_CODE:
            if name.startswith(prefixes):
                return kind, text
        lowered = text.lower()
        for needles, kind in _BY_TEXT:
            if any(n in lowered for n in needles):
                return kind, text
    return None


def guarded(fn: Callable[[], Any], paths: BrainPaths | None = None) -> CallToolResult:
    """Run ``fn``; its result or its error, as the CLI would report it (``paths``: the
    brains named in a database error's message)."""
    try:
        return success(fn())
    except BrainviewError as err:
        return failure(err.kind, err.message, int(err.code))
    except Exception as err:  # noqa: BLE001 - the CLI's last line of defence, same words
        known = database_kind(err)
        if known is not None:
            kind, said = known
            where = ""
            if paths is not None:
                where = f" (user brain {paths.user_db}; agent brain {paths.agent_db or 'none'})"
            return failure(kind, f"{_WORDS[kind]}{where}: {one_line(said, 200)}",
                           int(_CODES[kind]))  # fmt: skip
        message = f"internal error: {type(err).__name__}: {one_line(str(err), 300)}"
        return failure("internal", message, int(ExitCode.INTERNAL))
