"""Risky imperatives in lesson or proposal text: rules that would make an agent force,
skip verification, disable checks, run downloaded code, handle secrets, send data out,
or obey injected instructions.

Pure and cheap (a handful of compiled patterns); a match is a *signal* with a one-line
reason, never a refusal.  The text is normalised first (NFKC, invisible format
characters dropped) so zero-width characters or full-width letters cannot hide a rule.
A secret's value is never echoed in a reason, only what kind of secret it looks like.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

EXCERPT = 48
"""Characters of the matching text quoted in a reason."""

_I = re.IGNORECASE
_SHELLS = r"(?:sudo\s+)?(?:ba|z|da|k|fi|c|tc)?sh|python[0-9.]*|perl|ruby|node|iex"
_RULES: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    (
        "force",
        "force flag",
        re.compile(
            r"--force(?:-with-lease)?\b|\bforce[- ]push|\bpush\b[^\n;|&]{0,80}?\s-f\b"
            r"|\brm\s+(?:-[a-z]*f[a-z]*|-[a-z]+\s+-f)\b|\bgit\s+(?:reset\s+--hard|clean\s+-[a-z]*f)",
            _I,
        ),
    ),
    (
        "skip-verify",
        "skips tests or verification",
        re.compile(
            r"--no-verify\b|--skip-?tests?\b|-DskipTests\b|--no-gpg-sign\b"
            r"|\bskip(?:ping)?\s+(?:the\s+|all\s+|any\s+)?(?:unit\s+|ci\s+)?"
            r"(?:tests?|checks?|verification|validation|hooks?|ci|review)\b"
            r"|\bno need (?:for|to run)\s+(?:the\s+)?tests?\b"
            r"|\bdon'?t\s+(?:bother\s+)?(?:run(?:ning)?|with)\s+(?:the\s+)?tests\b",
            _I,
        ),
    ),
    (
        "disable-checks",
        "disables checks or safety",
        re.compile(
            r"\b(?:disable|turn\s+off|switch\s+off|bypass|silence)\s+(?:the\s+|all\s+)?"
            r"(?:[a-z-]+\s+)?(?:linters?|lint(?:ing)?|checks?|safety|security|validation|"
            r"sandbox(?:ing)?|type[- ]?check(?:ing|s)?|ssl|tls|certificate|guard(?:rail)?s?|"
            r"hooks?|warnings?|protection)\b"
            r"|--no-check-certificate\b|--insecure\b|\bverify\s*=\s*false\b|--no-sandbox\b"
            r"|--dangerously-skip-permissions\b|\beslint-disable\b|\bchmod\s+(?:-R\s+)?777\b",
            _I,
        ),
    ),
    (
        "pipe-shell",
        "pipes a download into a shell",
        re.compile(
            rf"\b(?:curl|wget|iwr|invoke-webrequest)\b[^\n|;]*\|\s*(?:{_SHELLS})\b"
            rf"|\b(?:{_SHELLS})\s+<\(\s*(?:curl|wget)\b|\biex\s*\(\s*(?:iwr|irm|new-object)",
            _I,
        ),
    ),
    (
        "blanket",
        "a blanket rule to approve or trust",
        re.compile(
            r"\b(?:always|unconditionally)\s+(?:accept|approve|merge|trust)\b"
            r"|\bnever\s+(?:reject|question|review|refuse)\b",
            _I,
        ),
    ),
    (
        "markup",
        "console markup that acts when rendered",
        re.compile(r"\[@click=|\[link=|\x1b\]52;|\]8;;", _I),
    ),
    (
        "injection",
        "reads like an injected instruction",
        re.compile(
            r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+)*"
            r"(?:previous|prior|above|earlier|system|original)\s+"
            r"(?:instructions?|rules?|prompts?|directions?|guidelines?|messages?)"
            r"|\byou\s+are\s+now\s+(?:in\s+)?(?:developer|dan|jailbreak|unrestricted)"
            r"|\bnew\s+system\s+prompt\b|\bdo\s+not\s+(?:tell|inform|alert)\s+the\s+"
            r"(?:user|maintainer|human|reviewer)",
            _I,
        ),
    ),
)
_SECRET_LITERAL = re.compile(
    r"-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----|\bgh[pousr]_[A-Za-z0-9]{20,}|\bsk-[A-Za-z0-9_-]{20,}"
    r"|\bAKIA[0-9A-Z]{16}\b|\bxox[abprs]-[A-Za-z0-9-]{10,}|\bAIza[0-9A-Za-z_-]{30,}"
)
_SECRET_ASSIGN = re.compile(
    r"\b(api[_ -]?key|secret(?:[_ -]?key)?|access[_ -]?key|(?:auth|bearer|access)?[_ -]?token"
    r"|pass(?:word|wd)?|private[_ -]?key|credentials?)\s*[:=]\s*['\"]?[^\s'\"]{6,}",
    _I,
)
_SECRET_HANDLING = re.compile(
    r"\b(?:paste|send|share|print|echo|post|upload|include|commit|log)\s+(?:the\s+|your\s+|all\s+)?"
    r"(?:[a-z]+\s+)?(?:api[_ -]?keys?|tokens?|passwords?|credentials|secrets?|private\s+keys?"
    r"|ssh\s+keys?|\.env\b)"
    r"|~/\.ssh/id_[a-z0-9]+|~/\.aws/credentials|\bcat\s+[^\s]*\.env\b",
    _I,
)
_URL = re.compile(r"https?://[^\s<>\"')\]]+", _I)
_EXFIL_HOST = re.compile(
    r"^https?://(?:[^/?#@]*@)?(?:[a-z0-9-]+\.)*(?:webhook\.site|requestbin\.\w+|pipedream\.net"
    r"|ngrok(?:-free)?\.(?:io|app|dev)|pastebin\.com|hastebin\.com|paste\.ee|transfer\.sh"
    r"|interact\.sh|oast\.\w+|burpcollaborator\.net|hooks\.slack\.com|requestcatcher\.com"
    r"|(?:discord|discordapp)\.com/api/webhooks)",
    _I,
)
_EXFIL_QUERY = re.compile(
    r"[?&][^=&#]*=\s*(?:\$\{?[A-Za-z_]|%24|\$\(|`)"
    r"|[?&][^=&#]*(?:token|secret|key|pass(?:word)?|cred|env)[^=&#]*=",
    _I,
)


@dataclass(frozen=True)
class Risk:
    """One risky imperative found: its kind and a one-line reason."""

    kind: str
    reason: str


_ANY = re.compile(
    r"force|-f\b|rm\s|reset|clean|skip|verify|test|gpg|disable|turn\s+off|switch\s+off|bypass"
    r"|silence|insecure|sandbox|permission|eslint|chmod|curl|wget|iwr|irm|invoke|iex|ignore"
    r"|disregard|forget|override|you\s+are\s+now|system\s+prompt|do\s+not\s+(?:tell|inform|alert)"
    r"|key|token|secret|pass|cred|private|\.ssh|\.aws|\.env|sk-|gh[pousr]_|akia|xox|aiza|https?://"
    r"|always|unconditionally|never|@click|link=|\]52;|\]8;;",
    _I,
)
"""Words every rule needs one of: most lessons are passed over after this one search."""


def normalise(text: str) -> str:
    """NFKC, invisible format characters (``Cf``) dropped: what a matcher should see."""
    if text.isascii():
        return text  # nothing to fold, no format character
    folded = unicodedata.normalize("NFKC", text)
    return "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")


def _excerpt(s: str) -> str:
    s = " ".join("".join(ch if ch.isprintable() else " " for ch in s).split())
    return s if len(s) <= EXCERPT else s[: EXCERPT - 1] + "…"


def risks(text: str | None) -> list[Risk]:
    """Every kind of risky imperative in ``text`` (at most one per kind), in rule order."""
    if not text:
        return []
    s = normalise(text)
    if not _ANY.search(s):
        return []
    out = []
    for kind, label, pattern in _RULES:
        m = pattern.search(s)
        if m:
            out.append(Risk(kind, f"risky imperative, {label}: “{_excerpt(m.group(0))}”"))
    secret = _SECRET_LITERAL.search(s)
    assign = _SECRET_ASSIGN.search(s)
    handling = _SECRET_HANDLING.search(s)
    if secret:
        out.append(Risk("secret", "risky imperative, credentials: a literal key or token"))
    elif assign:
        what = assign.group(1).lower().replace("_", " ").replace("-", " ")
        out.append(Risk("secret", f"risky imperative, credentials: a {what} value is written out"))
    elif handling:
        out.append(Risk("secret", f"risky imperative, handles secrets: “{_excerpt(handling[0])}”"))
    for url in _URL.findall(s):
        if _EXFIL_HOST.search(url) or _EXFIL_QUERY.search(url):
            host = url.split("/")[2].rsplit("@", 1)[-1] if url.count("/") >= 2 else url
            why = "a webhook or paste host" if _EXFIL_HOST.search(url) else "secrets in its query"
            out.append(
                Risk(
                    "exfil", f"risky imperative, exfiltration-shaped URL ({why}): {_excerpt(host)}"
                )
            )
            break
    return out


def risk_reasons(text: str | None) -> list[str]:
    """The one-line reasons of :func:`risks`."""
    return [r.reason for r in risks(text)]
