"""Reference texts shipped with brainview, for agents that cannot read the repository:
the proposal JSON Schema and the curator guide (served as MCP resources).

The schema lives in the package (``brainview/schema/proposal.schema.json``).  The guide
is written once, as ``docs/curator.md``; the wheel carries a copy at
``brainview/docs/curator.md`` (``force-include`` in ``pyproject.toml``), and a source
checkout reads ``docs/`` next to the package.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from brainview.errors import NotFoundError

GUIDE = "curator.md"


def proposal_schema() -> str:
    """The proposal JSON Schema (draft 2020-12), as text."""
    return files("brainview").joinpath("schema", "proposal.schema.json").read_text("utf-8")


def _guide_candidates() -> list[Path]:
    package = Path(str(files("brainview")))
    return [package / "docs" / GUIDE, package.parent / "docs" / GUIDE]


def curator_guide() -> str:
    """The curator integration guide (Markdown)."""
    for path in _guide_candidates():
        if path.is_file():
            return path.read_text("utf-8")
    raise NotFoundError(f"the curator guide ({GUIDE}) is not installed with this brainview")
