"""The MCP face: ``brainview mcp`` serves curator tools over stdio (the ``mcp`` SDK).

Like the other faces it calls services only.  Importing this package imports nothing;
the SDK loads when ``brainview mcp`` runs (:mod:`brainview.mcp.server`), never for
``brainview --help`` or any other command.

* :mod:`~brainview.mcp.registry` — how a tool is declared (``@tool``) and turned into an
  MCP tool: arguments from the signature, the work in a thread, results as JSON,
  brainview's errors as tool errors (``kind: message``, as the CLI says them);
* ``tools_*`` — one module per group of tools, one small function per tool;
* :mod:`~brainview.mcp.failures` — a tool's result or error, as the CLI says it (SQLite
  errors named ``not_a_brain``, ``locked``, …, never ``internal``);
* :mod:`~brainview.mcp.resources` — the curator guide and the proposal schema;
* :mod:`~brainview.mcp.stdio` — the transport: :mod:`~brainview.mcp.framing` cuts stdin
  into lines of at most 4 MiB without holding more, :mod:`~brainview.mcp.wire` turns a
  line into a message or the JSON-RPC error that answers it (docs/mcp.md);
* :mod:`~brainview.mcp.server` — assembles the server from the groups and runs it.
"""
