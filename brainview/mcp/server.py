"""Assemble the MCP server from the tool groups and run it over stdio.

Adding a tool: write one function decorated with ``@tool`` in a ``tools_*`` module
(:mod:`brainview.mcp.registry` says what it receives and returns).  Adding a group: a
new ``tools_<group>.py`` and its name in :data:`GROUPS`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from importlib import import_module
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, InputRequiredResult
from pydantic import ValidationError

from brainview import __version__
from brainview.errors import ExitCode
from brainview.mcp import registry, resources
from brainview.mcp.framing import line_limit
from brainview.mcp.stdio import stdio_transport

if TYPE_CHECKING:
    from brainview.store.discovery import BrainPaths

GROUPS = ("tools_recall", "tools_queue", "tools_reflections", "tools_held_back")
"""Modules of :mod:`brainview.mcp` whose ``@tool`` functions are offered, in order."""
INSTRUCTIONS = (
    "brainview keeps a curator agent's lessons (reflections) honest. Before drafting, "
    "`recall` the lessons that matter for your draft (ranked, each with why). Propose "
    "changes to the user brain with `propose` (try dry_run first), citing the reflections "
    "you consulted with a stance and the recall_id; read the maintainer's decisions and "
    "the grades they fired with `decisions_since`; look at one lesson with "
    "`inspect_reflection`. Tutor and QABot report whether a hint or answer worked with "
    "`report_outcome`. When lessons make you withdraw or rewrite a draft, say so with "
    "`report_held_back`. `queue_health` says whether the maintainers keep up (stale or "
    "growing queue): then propose fewer, better changes. `approvals` lists what waits "
    "for a second maintainer (the two-person rule) and their agreement. Read the resource "
    "brainview://docs/curator.md for the whole loop."
)


class Server(MCPServer):
    """The SDK's server; arguments that do not fit a tool's schema are a ``usage`` error,
    as a bad flag is for the CLI (the SDK would answer with pydantic's report).  Over
    stdio it reads through :func:`~brainview.mcp.stdio.stdio_transport` (bounded lines,
    every bad line answered), not the SDK's reader."""

    line_limit: int = 0
    """The request line limit in bytes (:func:`~brainview.mcp.framing.line_limit`)."""

    async def run_stdio_async(self) -> None:
        # As MCPServer.run_stdio_async (mcp 2.3.0, pinned), with our transport.
        lowlevel = self._lowlevel_server
        async with stdio_transport(self.line_limit) as (read_stream, write_stream):
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as err:
            cause = err.__cause__
            if not isinstance(cause, ValidationError) or not cause.errors():
                raise
            first = cause.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "arguments"
            message = f"{name}: {where}: {first['msg']}"
            return registry.failure("usage", message, int(ExitCode.USAGE))


def build(session: registry.Session) -> Server:
    """The server with every group's tools and the resources."""
    server = Server(
        name="brainview",
        title="brainview",
        version=__version__,
        instructions=INSTRUCTIONS,
        log_level="WARNING",
    )
    for group in GROUPS:
        for spec in registry.tools_of(import_module(f"brainview.mcp.{group}")):
            registry.register(server, spec, session)
    resources.register(server)
    return server


def run(paths: BrainPaths, *, runtime: str | None, clock: Callable[[], datetime]) -> None:
    """Serve until the client closes stdin (``BRAINVIEW_MCP_MAX_LINE`` checked first)."""
    limit = line_limit()
    server = build(registry.Session(paths, runtime, clock))
    server.line_limit = limit
    server.run("stdio")
