"""Resources: reference texts a curator reads before it proposes."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError

from brainview.errors import BrainviewError
from brainview.services import shipped

GUIDE_URI = "brainview://docs/curator.md"
SCHEMA_URI = "brainview://schema/proposal.schema.json"


def _curator_guide() -> str:
    try:
        return shipped.curator_guide()
    except BrainviewError as err:
        raise ResourceError(f"{err.kind}: {err.message}") from None


def register(server: MCPServer) -> None:
    """The curator guide and the proposal JSON Schema."""
    server.resource(
        GUIDE_URI,
        name="curator-guide",
        title="Curator integration guide",
        description="How a curator agent works with brainview: consult, propose, read "
        "decisions back (docs/curator.md).",
        mime_type="text/markdown",
    )(_curator_guide)
    server.resource(
        SCHEMA_URI,
        name="proposal-schema",
        title="Proposal JSON Schema",
        description="The JSON Schema (draft 2020-12) of one proposal; the propose tool "
        "checks it and more (docs/proposal-format.md).",
        mime_type="application/schema+json",
    )(shipped.proposal_schema)
