"""Fitting a table's columns to its width (shared by the three tables)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from brainview.tui.communities.cells import Columns, fit_widths


def fit_columns(table: DataTable[Text], columns: Columns, known: list[int]) -> list[int]:
    """Rebuild ``table``'s columns when the widths for its size differ from ``known``
    (then the caller refills it); returns the widths now in use."""
    widths = fit_widths(columns, table.size.width or table.screen.size.width)
    if widths == known:
        return known
    table.clear(columns=True)
    for (label, key, _w), w in zip(columns, widths, strict=True):
        table.add_column(Text(label), key=key, width=w)
    return widths
