"""How strong a password must be to be set (pure logic; no I/O).

A password is refused, with one line saying why, when it is

* shorter than :data:`MIN_LENGTH` characters (length is what makes guessing slow);
* made of fewer than :data:`MIN_DISTINCT` different characters (``aaaaaaaaaaaa``);
* only digits and symbols (a PIN, a date, a keyboard run);
* one of the most common passwords (:data:`COMMON`), also once digits and symbols at
  either end are taken off (``Password2024!``) and when it only repeats one of them
  (``passwordpassword``), compared case-insensitively;
* the person's name, or contains it (names of three characters or more).

The checks run wherever a password is set (``brainview users add`` / ``passwd`` and
the :class:`~brainview.services.team.accounts.Accounts` service they call), never when
one is checked at sign-in: an old weak password still signs in until it is changed.
"""

from __future__ import annotations

MIN_LENGTH = 12
MIN_DISTINCT = 5
_EDGES = "0123456789!@#$%^&*()-_=+[]{};:'\",.<>/?\\|`~ "

_WORDS = """
    password passw0rd p@ssword p@ssw0rd passwort motdepasse contraseña wachtwoord
    123456 1234567 12345678 123456789 1234567890 12345678910 123123 123321 111111
    000000 654321 987654321 qwerty qwertyuiop qwertz azerty asdfgh asdfghjkl zxcvbnm
    qwerty123 1q2w3e4r 1q2w3e4r5t 1qaz2wsx zaq12wsx qazwsx abc123 abcdef abcdefgh
    iloveyou letmein welcome welcome1 admin administrator root toor changeme secret
    default guest login master monkey dragon football baseball soccer hockey shadow
    sunshine princess superman batman starwars trustno1 whatever freedom michael
    jennifer jordan hunter ranger buster thomas charlie tigger pokemon computer
    internet trustme access hello hellothere loveme lovely flower samsung google
    brainview spikuit opensesame correcthorsebatterystaple
    """
COMMON: frozenset[str] = frozenset(_WORDS.split())
"""A small built-in list of the most common passwords (and this tool's names)."""


def weakness(password: str, name: str | None = None) -> str | None:
    """Why ``password`` is too weak to be set (for ``name``), ``None`` when it is not."""
    if len(password) < MIN_LENGTH:
        return f"a password needs at least {MIN_LENGTH} characters"
    if len(set(password)) < MIN_DISTINCT:
        return f"a password needs at least {MIN_DISTINCT} different characters"
    folded = password.casefold()
    if not folded.replace(" ", "").strip(_EDGES):
        return "a password needs letters, not only digits and symbols"
    if _is_common(folded):
        return "that password is one of the most common ones: choose another"
    if name and len(name) >= 3 and name.casefold() in folded:
        return "a password may not contain the person's name"
    return None


def _is_common(folded: str) -> bool:
    """Whether ``folded`` is a common password, bare, with digits or symbols around it,
    or one repeated (spaces ignored)."""
    squeezed = folded.replace(" ", "")
    core = squeezed.strip(_EDGES)
    for candidate in (folded, squeezed, core):
        if candidate in COMMON or _repeats_common(candidate):
            return True
    return False


def _repeats_common(text: str) -> bool:
    """Whether ``text`` is a common password written two or more times over."""
    for size in range(1, len(text) // 2 + 1):
        if len(text) % size == 0 and text[:size] * (len(text) // size) == text:
            unit = text[:size]
            return unit in COMMON or len(set(unit)) < MIN_DISTINCT
    return False
