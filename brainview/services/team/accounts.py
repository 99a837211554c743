"""The use cases of the users file: manage accounts, check a password or a token.

Every change reads the file, applies one change and writes it back atomically while
holding the file's lock (:func:`brainview.store.users_file.locked`); a refused change
writes nothing.  Checks never say whether a name exists: an unknown name costs a full
scrypt derivation against a dummy hash, like a wrong password.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from brainview.core.accounts import Account, AccountsError, dump_accounts, parse_accounts
from brainview.core.identity import IdentityError, Role, check_name, check_role
from brainview.core.passwords import (
    DUMMY,
    PasswordError,
    check_password,
    hash_password,
    new_token,
    token_digest,
    verify_password,
)
from brainview.errors import (
    BrainviewError,
    ConfigError,
    ConflictError,
    InvalidInputError,
    NotFoundError,
)
from brainview.store.users_file import (
    Signature,
    is_racy,
    locked,
    read_users,
    signature,
    write_users,
)
from brainview.store.users_file import default_path as default_path


@dataclass(frozen=True)
class Snapshot:
    """The accounts as read at one :data:`Signature` of the file."""

    accounts: dict[str, Account]
    signature: Signature | None
    racy: bool = False
    """Read so soon after a change that the signature alone cannot be trusted."""


def fingerprint(account: Account) -> str:
    """What a signed-in session is bound to: a digest of the account's role and password
    hash (salt and key).  A password change, a role change or a new account of the same
    name gives another fingerprint, which ends the sessions made with the old one."""
    digest = hashlib.sha256(b"brainview-session\0")
    digest.update(f"{account.name}\0{account.role}\0".encode())
    if account.password is not None:
        stored = account.password
        digest.update(f"{stored.algorithm}:{stored.n}:{stored.r}:{stored.p}\0".encode())
        digest.update(stored.salt + b"\0" + stored.key)
    digest.update(f"\0{account.created}".encode())
    return digest.hexdigest()


def same_fingerprint(account: Account | None, expected: str) -> bool:
    """Whether ``account`` still has the fingerprint ``expected`` (constant time)."""
    if account is None:
        return False
    return hmac.compare_digest(fingerprint(account).encode(), expected.encode())


def valid_name(name: str) -> str:
    """``name`` checked (:class:`InvalidInputError`, one line, otherwise)."""
    try:
        return check_name(name)
    except IdentityError as err:
        raise InvalidInputError(f"{name!r}: {err}") from None


def valid_role(role: str) -> Role:
    try:
        return check_role(role)
    except IdentityError as err:
        raise InvalidInputError(str(err)) from None


def valid_password(password: str, name: str | None = None) -> str:
    """``password`` if it may be set for ``name`` (:class:`InvalidInputError`, one line,
    saying why not)."""
    try:
        return check_password(password, name)
    except PasswordError as err:
        raise InvalidInputError(str(err)) from None


class Accounts:
    """One users file."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def load(self) -> Snapshot:
        """Every account (none when the file does not exist yet)."""
        found = read_users(self.path)
        if found is None:
            return Snapshot({}, None)
        doc, sig = found
        racy = is_racy(sig, time.time_ns())
        try:
            return Snapshot(parse_accounts(doc), sig, racy)
        except AccountsError as err:
            raise ConfigError(f"users file {self.path}: {err}") from None

    def current_signature(self) -> Signature | None:
        """The file's signature now (``None``: missing); a ``stat``, nothing read."""
        return signature(self.path)

    def changed(self, snapshot: Snapshot) -> bool:
        """Whether the file differs from when ``snapshot`` was read (a ``stat``; a
        snapshot read right after a change is always read again)."""
        if snapshot.racy:
            return True
        try:
            return self.current_signature() != snapshot.signature
        except BrainviewError:
            return True

    def _change(self, change: Callable[[dict[str, Account]], Account]) -> Account:
        with locked(self.path):
            accounts = dict(self.load().accounts)
            account = change(accounts)
            write_users(self.path, dump_accounts(accounts))
        return account

    def add(self, name: str, role: str, password: str, *, now: str) -> Account:
        """A new account with a password; :class:`ConflictError` if the name is taken."""
        name, checked, secret = valid_name(name), valid_role(role), valid_password(password, name)
        hashed = hash_password(secret)

        def change(accounts: dict[str, Account]) -> Account:
            if name in accounts:
                raise ConflictError(f"user {name} already exists (users passwd / users role)")
            accounts[name] = Account(name, checked, now, hashed)
            return accounts[name]

        return self._change(change)

    def _existing(self, accounts: dict[str, Account], name: str) -> Account:
        if name not in accounts:
            raise NotFoundError(f"no user {name} in {self.path}")
        return accounts[name]

    def remove(self, name: str) -> Account:
        """Remove an account (its sessions end at the server's next request)."""
        valid_name(name)

        def change(accounts: dict[str, Account]) -> Account:
            self._existing(accounts, name)
            return accounts.pop(name)

        return self._change(change)

    def set_role(self, name: str, role: str) -> Account:
        """Change a role (in effect at the person's next sign-in)."""
        valid_name(name)
        checked = valid_role(role)

        def change(accounts: dict[str, Account]) -> Account:
            accounts[name] = self._existing(accounts, name).with_role(checked)
            return accounts[name]

        return self._change(change)

    def set_password(self, name: str, password: str) -> Account:
        """Replace a password (a fresh salt, today's parameters)."""
        valid_name(name)
        hashed = hash_password(valid_password(password, name))

        def change(accounts: dict[str, Account]) -> Account:
            accounts[name] = self._existing(accounts, name).with_password(hashed)
            return accounts[name]

        return self._change(change)

    def issue_token(self, name: str, *, now: str) -> tuple[str, Account]:
        """A new bearer token for ``name`` (replacing any older one): the token, to be
        shown once, and the account as stored (its hash only)."""
        valid_name(name)
        token, stored = new_token()

        def change(accounts: dict[str, Account]) -> Account:
            accounts[name] = self._existing(accounts, name).with_token(stored, now)
            return accounts[name]

        return token, self._change(change)


def check_password_of(snapshot: Snapshot, name: str, password: str) -> Account | None:
    """The account ``name`` signs in as with ``password``, else ``None``.  Unknown
    names and accounts without a password are checked against a dummy hash (same cost)."""
    account = snapshot.accounts.get(name)
    stored = account.password if account is not None else None
    ok = verify_password(password, stored or DUMMY)
    return account if ok and account is not None and stored is not None else None


def check_token_of(snapshot: Snapshot, token: str) -> Account | None:
    """The account whose bearer token is ``token``, else ``None`` (constant-time compare
    of SHA-256 digests against every account's)."""
    digest = token_digest(token)
    found = None
    for account in snapshot.accounts.values():
        if account.token is not None and hmac.compare_digest(digest, account.token.digest):
            found = account
    return found
