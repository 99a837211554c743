"""Host names as ``brainview serve`` checks them (``Host``, ``Origin``, ``--host``)."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback IP literal (127.0.0.0/8, ``::1``)."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def host_name(netloc: str) -> str:
    """The host part of a ``Host`` header or origin netloc (no port, no brackets);
    ``""`` when it cannot be parsed."""
    try:
        return (urlsplit(f"//{netloc}").hostname or "").lower()
    except ValueError:
        return ""


def origin_netloc(origin: str) -> str | None:
    """The ``host:port`` of an ``Origin`` header (``None`` when it cannot be parsed)."""
    try:
        return urlsplit(origin).netloc
    except ValueError:
        return None
