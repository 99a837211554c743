"""A retired user neuron named in any text reads as every legend says: ⊘ retired."""

from __future__ import annotations

from brainview.core.refs import name_refs
from brainview.core.vocabulary import LEGEND


def test_a_retired_neuron_reads_as_the_legend_says() -> None:
    titles = {"n-1": ("Ring — edge cases", False), "n-2": ("Monad", True)}
    shown = name_refs("merge [user:n-1] into [user:n-2]; see [user:n-3]", titles)
    assert shown == "merge ⟦Ring — edge cases ⊘ retired⟧ into ⟦Monad⟧; see ⟦n-3 ↛ dangling⟧"
    assert "⊘ retired" in LEGEND and "⚠ retired" not in shown
