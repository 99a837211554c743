"""Where the console's ``.tcss`` files are: a leaf every screen may import (it imports
nothing of the console), so no screen reaches for the app module to find them."""

from __future__ import annotations

from pathlib import Path

STYLES = Path(__file__).resolve().parent.parent / "styles"
if not STYLES.is_dir():  # editable install / source checkout: styles/ at the top level
    STYLES = Path(__file__).resolve().parents[2] / "styles"
