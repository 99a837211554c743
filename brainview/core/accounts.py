"""The people who may sign in to ``brainview serve``: the users file's contents.

The file (JSON, see :mod:`brainview.store.users_file`) maps each name to a role, a
password hash (:class:`~brainview.core.passwords.PasswordHash`, or none yet), a bearer
token's hash (or none) and when the account was created::

    {"version": 1, "users": {"ada": {"role": "reviewer", "created": "2026-…",
      "password": {"algorithm": "scrypt", "n": 16384, …}, "token": {"sha256": "…",
      "issued": "2026-…"}}}}

Nothing here holds a password or a token in clear.  Parsing is strict: a malformed
file is refused as a whole (:class:`AccountsError`) rather than half-read.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from brainview.core.identity import IdentityError, Role, check_name, check_role
from brainview.core.passwords import PasswordError, PasswordHash, TokenHash, needs_rehash

VERSION = 1
MAX_USERS = 10_000


class AccountsError(ValueError):
    """A users file that cannot be read as one; the message is one line."""


@dataclass(frozen=True)
class Account:
    """One person who may sign in."""

    name: str
    role: Role
    created: str
    password: PasswordHash | None = None
    token: TokenHash | None = None
    token_issued: str | None = None

    def with_role(self, role: Role) -> Account:
        return replace(self, role=role)

    def with_password(self, password: PasswordHash) -> Account:
        return replace(self, password=password)

    def with_token(self, token: TokenHash, issued: str) -> Account:
        return replace(self, token=token, token_issued=issued)

    def to_json(self) -> dict[str, Any]:
        """The account as stored."""
        out: dict[str, Any] = {"role": self.role, "created": self.created}
        out["password"] = self.password.to_json() if self.password else None
        out["token"] = (
            {"sha256": self.token.digest, "issued": self.token_issued} if self.token else None
        )
        return out

    def listing(self) -> dict[str, Any]:
        """What ``users list --json`` shows (no hash, no salt)."""
        return {
            "name": self.name,
            "role": self.role,
            "has_password": self.password is not None,
            "hash_outdated": self.password is not None and needs_rehash(self.password),
            "token_id": self.token.token_id if self.token else None,
            "token_issued": self.token_issued,
            "created": self.created,
        }


def parse_accounts(doc: Any) -> dict[str, Account]:
    """The accounts of a parsed users file, by name; :class:`AccountsError` if malformed."""
    if not isinstance(doc, dict) or doc.get("version") != VERSION:
        raise AccountsError(f"not a brainview users file (expected version {VERSION})")
    users = doc.get("users")
    if not isinstance(users, dict) or len(users) > MAX_USERS:
        raise AccountsError("malformed users file: 'users' must be an object")
    out: dict[str, Account] = {}
    for name, data in users.items():
        try:
            out[name] = _account(name, data)
        except (IdentityError, PasswordError, TypeError) as err:
            raise AccountsError(f"malformed entry for a user: {err}") from None
    return out


def _account(name: Any, data: Any) -> Account:
    if not isinstance(name, str) or not isinstance(data, dict):
        raise TypeError("an entry must be an object")
    check_name(name)
    role = check_role(str(data.get("role")))
    created = data.get("created")
    if not isinstance(created, str):
        raise TypeError("'created' must be a string")
    password = data.get("password")
    stored = PasswordHash.from_json(password) if password is not None else None
    token, issued = _token(data.get("token"))
    return Account(name, role, created, stored, token, issued)


def _token(data: Any) -> tuple[TokenHash | None, str | None]:
    if data is None:
        return None, None
    if not isinstance(data, dict):
        raise TypeError("'token' must be an object or null")
    digest, issued = data.get("sha256"), data.get("issued")
    if not isinstance(digest, str) or len(digest) != 64 or not _is_hex(digest):
        raise TypeError("'token.sha256' must be 64 hex digits")
    if issued is not None and not isinstance(issued, str):
        raise TypeError("'token.issued' must be a string")
    return TokenHash(digest.lower()), issued


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdefABCDEF" for c in text)


def dump_accounts(accounts: dict[str, Account]) -> dict[str, Any]:
    """The users file's document for ``accounts`` (sorted by name)."""
    return {
        "version": VERSION,
        "users": {name: accounts[name].to_json() for name in sorted(accounts)},
    }
