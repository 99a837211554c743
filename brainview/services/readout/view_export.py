"""Write the rows a screen shows to CSV or JSON (data kept exact, not sanitised)."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from brainview.errors import InvalidInputError
from brainview.store.safe_files import atomic_write


def export_rows(rows: Sequence[dict[str, Any]], path: Path) -> int:
    """Write ``rows`` to ``path`` (format from the suffix: .csv or .json); returns the count.

    Through :func:`brainview.store.safe_files.atomic_write`: only a new regular file is
    written (an existing file, a symbolic link, a device or FIFO is refused — the
    console has no ``--force``), next to its final name and renamed, so a failure
    leaves nothing half-written.
    """
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".json"):
        raise InvalidInputError(f"export to .csv or .json, not {path.name!r}")
    with atomic_write(path, "export", force_flag=None) as fh:
        if suffix == ".json":
            json.dump(list(rows), fh, ensure_ascii=False, indent=1, default=str)
        else:
            fields = list(rows[0]) if rows else []
            writer = csv.DictWriter(fh, fieldnames=fields)
            writer.writeheader()
            writer.writerows(rows)
    return len(rows)
