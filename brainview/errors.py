"""Errors that end in one clear line and a distinct exit code.

Kept free of heavy imports: the CLI's ``--help`` path imports it.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit codes, documented in ``docs/cli.md``."""

    OK = 0
    USAGE = 2
    NOT_FOUND = 3
    INVALID_INPUT = 4
    CONFLICT = 5
    LOCKED = 6
    READ_ONLY = 7
    NOT_A_BRAIN = 8
    UNKNOWN_SCHEMA = 9
    CONFIG = 10
    REFUSED = 11
    DISK_FULL = 12
    UNSAFE_SCHEMA = 13
    BAD_PATH = 14
    NOTIFY = 15
    INTERNAL = 70


class BrainviewError(Exception):
    """Base error: ``str(err)`` is the one line shown to the user."""

    code: ExitCode = ExitCode.INTERNAL
    kind: str = "internal"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_dict(self) -> dict[str, object]:
        """JSON shape used by ``--json`` error output."""
        return {"error": self.kind, "message": self.message, "exit_code": int(self.code)}


class UsageError(BrainviewError):
    code, kind = ExitCode.USAGE, "usage"


class NotFoundError(BrainviewError):
    code, kind = ExitCode.NOT_FOUND, "not_found"


class InvalidInputError(BrainviewError):
    code, kind = ExitCode.INVALID_INPUT, "invalid_input"


class ConflictError(BrainviewError):
    code, kind = ExitCode.CONFLICT, "conflict"


class LockedError(BrainviewError):
    code, kind = ExitCode.LOCKED, "locked"


class ReadOnlyError(BrainviewError):
    code, kind = ExitCode.READ_ONLY, "read_only"


class NotABrainError(BrainviewError):
    code, kind = ExitCode.NOT_A_BRAIN, "not_a_brain"


class UnknownSchemaError(BrainviewError):
    code, kind = ExitCode.UNKNOWN_SCHEMA, "unknown_schema"


class ConfigError(BrainviewError):
    code, kind = ExitCode.CONFIG, "config"


class RefusedError(BrainviewError):
    """A request refused for safety (e.g. serving beyond loopback without ``--public``)."""

    code, kind = ExitCode.REFUSED, "refused"


class RoleRefusedError(RefusedError):
    """The person at this console holds a role below the one the action needs (the
    message names both: ``invalidating reflections needs the maintainer role (alice is
    a reviewer)``); nothing was written."""

    kind = "role"


class SelfApprovalError(RefusedError):
    """The decider is the proposal's author (its runtime): ``refused: alice proposed
    prop-… and cannot decide it``; nothing was written (``review.allow_self_approval``
    lifts it for a one-person project)."""

    kind = "self_approval"


class NotifyError(BrainviewError):
    """The queue's notify command failed (not found, non-zero exit, timed out)."""

    code, kind = ExitCode.NOTIFY, "notify"


class DiskFullError(BrainviewError):
    """SQLITE_FULL: the disk (or quota) filled mid-write; the transaction rolled back."""

    code, kind = ExitCode.DISK_FULL, "disk_full"


class UnsafeSchemaError(BrainviewError):
    """A brain holds triggers, views or other objects Spikuit never creates: not written."""

    code, kind = ExitCode.UNSAFE_SCHEMA, "unsafe_schema"


class BadPathError(BrainviewError):
    """A path that must name a regular file (or nothing yet) is a directory, a device, a
    FIFO, a socket, or a dangling or looping symbolic link."""

    code, kind = ExitCode.BAD_PATH, "bad_path"


class ReplacedError(ConflictError):
    """A brain file was replaced or deleted under an open connection."""

    kind = "replaced"
