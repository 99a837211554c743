"""Password hashes and bearer tokens for ``brainview serve``'s sign-in (pure logic).

Passwords are hashed with scrypt (``hashlib.scrypt``, in the standard library): it is
memory-hard, so guessing on graphics cards or custom hardware costs memory as well as
time.  A hash is stored with its algorithm and parameters (``n``, ``r``, ``p``) and a
16-byte random salt, so the parameters can be raised later: a hash made with weaker
ones still verifies, and :func:`needs_rehash` says it should be replaced.  Verification
compares with :func:`hmac.compare_digest` (constant time).

Bearer tokens are 32 random bytes (``secrets.token_urlsafe``), shown once and stored
only as their SHA-256 (a token is random, so a fast hash suffices), with a short id
(the first characters of that hash) to tell tokens apart in listings.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any

from brainview.core.password_rules import MIN_LENGTH, weakness

ALGORITHM = "scrypt"
N, R, P = 2**14, 8, 1
"""scrypt cost: 16 MiB of memory, ~90 ms per hash on the 2-core reference machine when
quiet (~150 ms busy); ``n = 2**15`` doubled that, past the ~150 ms budget."""
SALT_BYTES = 16
KEY_BYTES = 32
MAX_PASSWORD = 1024
"""Longest password accepted (characters); longer input is refused, not truncated."""
MIN_PASSWORD = MIN_LENGTH
TOKEN_BYTES = 32
TOKEN_ID_CHARS = 8
_MAX_N = 2**20
"""Largest ``n`` a stored hash may ask for (a planted file cannot make us hang)."""


class PasswordError(ValueError):
    """A password or a stored hash that cannot be used; the message is one line."""


@dataclass(frozen=True)
class PasswordHash:
    """A stored password hash: algorithm, parameters, salt and derived key."""

    n: int
    r: int
    p: int
    salt: bytes
    key: bytes
    algorithm: str = ALGORITHM

    def to_json(self) -> dict[str, Any]:
        """The shape stored in the users file (salt and key base64)."""
        return {
            "algorithm": self.algorithm,
            "n": self.n,
            "r": self.r,
            "p": self.p,
            "salt": _b64(self.salt),
            "hash": _b64(self.key),
        }

    @classmethod
    def from_json(cls, data: Any) -> PasswordHash:
        """Parse a stored hash; :class:`PasswordError` when malformed or unsafe."""
        if not isinstance(data, dict) or data.get("algorithm") != ALGORITHM:
            raise PasswordError("unknown password hash algorithm")
        n, r, p = data.get("n"), data.get("r"), data.get("p")
        if not (isinstance(n, int) and isinstance(r, int) and isinstance(p, int)) or any(
            isinstance(v, bool) for v in (n, r, p)
        ):
            raise PasswordError("malformed password hash parameters")
        if not (2 <= n <= _MAX_N and n & (n - 1) == 0 and 1 <= r <= 32 and 1 <= p <= 16):
            raise PasswordError("password hash parameters out of range")
        try:
            salt = base64.b64decode(str(data.get("salt")), validate=True)
            key = base64.b64decode(str(data.get("hash")), validate=True)
        except ValueError:
            raise PasswordError("malformed password hash") from None
        if len(salt) < 8 or len(key) < 16:
            raise PasswordError("malformed password hash")
        return cls(n, r, p, salt, key)


def check_password(password: str, name: str | None = None) -> str:
    """``password`` if it can be set (for ``name``): at most 1024 characters, no NUL or
    line break, and strong enough (:func:`brainview.core.password_rules.weakness`)."""
    if len(password) > MAX_PASSWORD:
        raise PasswordError(f"a password is at most {MAX_PASSWORD} characters")
    if any(c in password for c in "\x00\r\n"):
        raise PasswordError("a password holds no NUL or line break")
    why = weakness(password, name)
    if why is not None:
        raise PasswordError(why)
    return password


def _derive(password: str, salt: bytes, n: int, r: int, p: int, size: int) -> bytes:
    return hashlib.scrypt(
        password.encode("utf-8"),
        salt=salt,
        n=n,
        r=r,
        p=p,
        maxmem=128 * r * (n + p + 2) + (1 << 20),
        dklen=size,
    )


def hash_password(password: str, *, n: int = N, r: int = R, p: int = P) -> PasswordHash:
    """A new hash of ``password`` (checked first) with a fresh random salt."""
    check_password(password)
    salt = secrets.token_bytes(SALT_BYTES)
    return PasswordHash(n, r, p, salt, _derive(password, salt, n, r, p, KEY_BYTES))


def verify_password(password: str, stored: PasswordHash) -> bool:
    """Whether ``password`` matches ``stored`` (constant-time comparison).  A password
    too long to be valid is not hashed at all (no unbounded work)."""
    if len(password) > MAX_PASSWORD:
        return False
    got = _derive(password, stored.salt, stored.n, stored.r, stored.p, len(stored.key))
    return hmac.compare_digest(got, stored.key)


def needs_rehash(stored: PasswordHash) -> bool:
    """Whether ``stored`` was made with weaker parameters than today's."""
    return (stored.n, stored.r, stored.p) < (N, R, P) or stored.algorithm != ALGORITHM


DUMMY = PasswordHash(N, R, P, b"brainview-dummy-salt", b"\x00" * KEY_BYTES)
"""Verified against for unknown names, so a wrong name costs the same as a wrong
password (no key derives to all zeroes, so it never matches)."""


@dataclass(frozen=True)
class TokenHash:
    """A stored bearer token: its SHA-256 and a short id for listings."""

    digest: str
    """Hex SHA-256 of the token."""

    @property
    def token_id(self) -> str:
        """The first characters of the digest: tells tokens apart, reveals nothing."""
        return self.digest[:TOKEN_ID_CHARS]


def token_digest(token: str) -> str:
    """Hex SHA-256 of a token as sent in ``Authorization: Bearer``."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def new_token() -> tuple[str, TokenHash]:
    """A fresh bearer token (to show once) and what is stored of it."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    return token, TokenHash(token_digest(token))


def verify_token(token: str, stored: TokenHash) -> bool:
    """Whether ``token`` is the one ``stored`` was made from (constant-time)."""
    return hmac.compare_digest(token_digest(token), stored.digest)


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")
