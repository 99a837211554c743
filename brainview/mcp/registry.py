"""Declaring tools: one plain function each, turned into an MCP tool by :func:`register`.

A tool is a synchronous function in a ``tools_*`` module, decorated with :func:`tool`.
Its first parameter receives a :class:`Call` (where the brains are, who is calling,
the clock of this call); the others are the tool's arguments — their annotations
(``Annotated[..., Field(description=...)]``) and defaults make the input schema the
client sees, and the docstring is the tool's description.  It returns a JSON object
(a ``dict``, or JSON text of one) or raises :class:`~brainview.errors.BrainviewError`.

:func:`register` wraps it for the SDK: the function runs in a worker thread (it opens
brains, which blocks); the dict comes back as the result's structured content and as
its JSON text; a ``BrainviewError`` comes back as a tool error (``isError``) whose text
is ``"<kind>: <message>"`` — the message the CLI prints, its kind the ``error`` of the
CLI's ``--json`` error — with ``{"error", "message", "exit_code"}`` as structured
content; a SQLite error that escaped untranslated is named as the store names it
(``not_a_brain``, ``locked``, …); anything else is ``internal`` (exit code 70), as in
:mod:`brainview.cli` (:mod:`brainview.mcp.failures`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from types import ModuleType
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, ToolAnnotations

from brainview.core.safe_text import one_line
from brainview.mcp.failures import failure, guarded, success
from brainview.services.project import Project
from brainview.services.session import Session as ServiceSession
from brainview.services.session import curator_session

if TYPE_CHECKING:
    from brainview.store.discovery import BrainPaths

MAX_RUNTIME = 128
DEFAULT_RUNTIME = "mcp-client"
_SPEC = "__brainview_tool__"
__all__ = ["Call", "Session", "ToolSpec", "failure", "guarded", "register", "success", "tool"]


@dataclass(frozen=True)
class Session:
    """What every call of one server shares: the brains, ``--runtime``, the clock."""

    paths: BrainPaths
    runtime: str | None
    """``--runtime``; ``None``: each call uses the MCP client's name."""
    clock: Callable[[], datetime]

    def call(self, client_name: str | None) -> Call:
        """The view one tool call gets (``now`` read once, at its start)."""
        runtime = self.runtime or one_line(client_name, MAX_RUNTIME) or DEFAULT_RUNTIME
        return Call(self.paths, runtime, self.clock())


@dataclass(frozen=True)
class Call:
    """One tool call: where the brains are, who calls (the curator runtime), now."""

    paths: BrainPaths
    runtime: str
    now: datetime

    def project(self) -> Project:
        """Both brains, opened for reading for this call (use as a context manager);
        writes go through :meth:`session`."""
        return Project.open(self.paths)

    def session(self) -> ServiceSession:
        """The services' door for this call's actions (the runtime decides, at ``now``);
        use as a context manager."""
        return curator_session(self.paths, runtime=self.runtime, now=self.now)


@dataclass(frozen=True)
class ToolSpec:
    """How a function is offered as a tool."""

    fn: Callable[..., Any]
    title: str
    read_only: bool
    idempotent: bool

    @property
    def name(self) -> str:
        return self.fn.__name__


def tool(*, title: str, read_only: bool, idempotent: bool = False) -> Callable[[Any], Any]:
    """Mark a function of a ``tools_*`` module as an MCP tool (named after it).

    ``read_only``: it changes no row of either brain (a hint for clients; the tests hold
    every read-only tool to it).  ``idempotent``: calling it again with the same
    arguments has no further effect.
    """

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        setattr(fn, _SPEC, ToolSpec(fn, title, read_only, idempotent))
        return fn

    return mark


def tools_of(module: ModuleType) -> Iterator[ToolSpec]:
    """The tools a module declares, in the order they are written."""
    for value in vars(module).values():
        spec = getattr(value, _SPEC, None)
        if isinstance(spec, ToolSpec) and spec.fn is value:
            yield spec


def _client_name(ctx: Context) -> str | None:
    params = ctx.session.client_params
    return None if params is None else params.client_info.name


def register(server: MCPServer, spec: ToolSpec, session: Session) -> None:
    """Offer ``spec`` on ``server``: its arguments are the function's after the first."""
    signature = inspect.signature(spec.fn, eval_str=True)
    params = list(signature.parameters.values())[1:]

    async def run(ctx: Context, **arguments: Any) -> CallToolResult:
        call = session.call(_client_name(ctx))
        work = functools.partial(spec.fn, call, **arguments)
        return await anyio.to_thread.run_sync(guarded, work, session.paths)

    context = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)
    run.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*params, context], return_annotation=CallToolResult
    )
    run.__annotations__ = {p.name: p.annotation for p in params} | {
        "ctx": Context,
        "return": CallToolResult,
    }
    run.__name__ = spec.name
    server.add_tool(
        run,
        name=spec.name,
        title=spec.title,
        description=inspect.cleandoc(spec.fn.__doc__ or ""),
        annotations=ToolAnnotations(
            title=spec.title,
            read_only_hint=spec.read_only,
            destructive_hint=False,
            idempotent_hint=spec.idempotent,
            open_world_hint=False,
        ),
        structured_output=False,
    )
