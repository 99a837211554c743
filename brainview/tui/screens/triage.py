"""Where the triage screen used to live: it is now :mod:`brainview.tui.triage`.

Kept so the modules that still import it from here (the app's mode switch, the keymap)
keep working until they import the package directly."""

from __future__ import annotations

from brainview.tui.triage import TriageScreen

__all__ = ["TriageScreen"]
