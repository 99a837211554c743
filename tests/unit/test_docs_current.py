"""Generated docs cannot drift from the code."""

from __future__ import annotations

from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_keys_and_config_docs_are_current() -> None:
    from brainview.docgen import config_md, keys_md

    hint = "run: python -m brainview.docgen --write"
    assert (DOCS / "keys.md").read_text() == keys_md(), hint
    assert (DOCS / "config.md").read_text() == config_md(), (
        "run: python -m brainview.docgen --write"
    )
