"""Write the rows a screen shows to CSV or JSON (data kept exact, not sanitised)."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from brainview.errors import InvalidInputError, ReadOnlyError
from brainview.store.connect import refuse_brain_path


def export_rows(rows: Sequence[dict[str, Any]], path: Path) -> int:
    """Write ``rows`` to ``path`` (format from the suffix: .csv or .json); returns the count.

    The file is written next to its final name and renamed, so a failure leaves
    nothing half-written.
    """
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".json"):
        raise InvalidInputError(f"export to .csv or .json, not {path.name!r}")
    refuse_brain_path(path, "export")
    tmp = path.with_name(f".{path.name}.part")
    try:
        with tmp.open("w", encoding="utf-8", newline="") as fh:
            if suffix == ".json":
                json.dump(list(rows), fh, ensure_ascii=False, indent=1, default=str)
            else:
                fields = list(rows[0]) if rows else []
                writer = csv.DictWriter(fh, fieldnames=fields)
                writer.writeheader()
                writer.writerows(rows)
        tmp.replace(path)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        raise ReadOnlyError(f"cannot write {path}: {err.strerror}") from None
    return len(rows)
