"""The served console (``brainview serve``): textual-serve behind brainview's own gate.

A face of its own beside the console and MCP: :mod:`~brainview.web.console` runs one
``brainview open`` process per browser tab; :mod:`~brainview.web.auth` signs people in
(sessions in :mod:`~brainview.web.sessions`, lock-outs in :mod:`~brainview.web.throttle`,
slots per role in :mod:`~brainview.web.slots`, pages in :mod:`~brainview.web.pages`);
:mod:`~brainview.web.limits` bounds sessions and messages; :mod:`~brainview.web.hosts`
decides what counts as loopback.  ``brainview serve`` (:mod:`brainview.commands.serve`)
checks the brains and starts it.
"""
