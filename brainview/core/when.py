"""Time filters as people and agents write them: an ISO 8601 date or time, or an age.

Pure: the caller says what "now" is and turns a ``ValueError`` into its own kind of
error (the CLI's ``--since``, the MCP server's ``since``).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from brainview.core.timestamps import format_ts, parse_ts

_RELATIVE = re.compile(r"^(\d{1,6})([smhdw])$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_when(value: str, clock: datetime) -> str:
    """``value`` as a stored-timestamp string (ISO 8601 with ``+00:00``).

    Accepts ISO 8601 dates or datetimes (any of the brain spellings; naive = UTC) and
    relative ages such as ``30m``, ``12h``, ``7d``, ``2w`` (that long before ``clock``).
    Raises ``ValueError`` naming what was expected.
    """
    text = value.strip()
    rel = _RELATIVE.match(text)
    if rel:
        return format_ts(clock - timedelta(**{_UNITS[rel.group(2)]: int(rel.group(1))}))
    try:
        return format_ts(parse_ts(text))
    except (ValueError, IndexError):
        raise ValueError(
            f"expected an ISO 8601 date/time or an age like 7d, got {value!r}"
        ) from None
