"""Who is at a console: a person's name and role.

A console run by ``brainview serve`` for a signed-in person is told who that is through
its environment (the server sets it for each browser session's process; nothing else
does): :data:`NAME_ENV`, :data:`ROLE_ENV`, and :data:`PRESENCE_ENV`, the presence
database the server's consoles share.  A console started by hand has none of them and
runs as the OS user (or ``review.decider``) with the maintainer role, as before.

Roles, weakest first: ``viewer`` reads, ``reviewer`` also triages and rescues or lets
go of fading reflections, ``maintainer`` may do everything (see
:mod:`brainview.core.roles` for the table).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Role = Literal["viewer", "reviewer", "maintainer"]
ROLES: tuple[Role, ...] = ("viewer", "reviewer", "maintainer")
"""Every role, weakest first."""

NAME_ENV = "BRAINVIEW_AS"
"""The signed-in person's name, set by ``brainview serve`` for its consoles."""
ROLE_ENV = "BRAINVIEW_ROLE"
"""The signed-in person's role (one of :data:`ROLES`)."""
PRESENCE_ENV = "BRAINVIEW_PRESENCE"
"""Path of the presence database shared by one server's consoles."""

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


class IdentityError(ValueError):
    """A name or role that cannot be used; the message is one line."""


def check_name(name: str) -> str:
    """``name`` if it is a usable person's name (1–64 of ``A-Z a-z 0-9 . _ -``,
    starting with a letter or digit); raises :class:`IdentityError` otherwise."""
    if not _NAME.fullmatch(name):
        raise IdentityError(
            "a name is 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    return name


def check_role(role: str) -> Role:
    """``role`` as a :data:`Role`; raises :class:`IdentityError` for anything else."""
    if role not in ROLES:
        raise IdentityError(f"unknown role {role!r}: expected one of {', '.join(ROLES)}")
    return role


@dataclass(frozen=True)
class Identity:
    """A signed-in person as a console sees them."""

    name: str
    role: Role
    presence: str | None = None
    """The shared presence database's path, when the server keeps one."""

    def env(self) -> dict[str, str]:
        """The environment variables that hand this identity to a console process."""
        out = {NAME_ENV: self.name, ROLE_ENV: self.role}
        if self.presence:
            out[PRESENCE_ENV] = self.presence
        return out


def identity_from_env(environ: Mapping[str, str]) -> Identity | None:
    """The identity a server handed this process, ``None`` when it was started by hand.

    Raises :class:`IdentityError` when the variables are present but unusable (a
    console must not fall back to the OS user's full rights in that case)."""
    name = environ.get(NAME_ENV)
    role = environ.get(ROLE_ENV)
    if name is None and role is None:
        return None
    if name is None or role is None:
        raise IdentityError(f"{NAME_ENV} and {ROLE_ENV} must be set together")
    presence = environ.get(PRESENCE_ENV) or None
    return Identity(check_name(name), check_role(role), presence)
