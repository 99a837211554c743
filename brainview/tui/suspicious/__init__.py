"""The suspicious view: lessons with a suspicion signal, ranked by influence ×
suspicion (or by influence alone, ``o``), each signal's reason under the table for the
highlighted lesson; ``enter`` opens the reflection view."""

from brainview.tui.suspicious.screen import SuspiciousScreen

__all__ = ["SuspiciousScreen"]
