"""Command handlers, one module per command group; each imports what it needs when it runs.

The parser (:mod:`brainview.commands.tree`) tags every leaf with ``run="module:function"``;
:func:`run` imports that module of this package and calls the function with the parsed
arguments.  Handlers return the exit code or raise :mod:`brainview.errors` errors.

This package's ``__init__`` imports nothing at module level: the fast ``--help`` path
loads :mod:`brainview.commands.helptext` through it.
"""

TYPE_CHECKING = False  # not typing's: importing typing would load a dozen modules for --help
if TYPE_CHECKING:
    import argparse


def run(args: "argparse.Namespace") -> int:
    """Dispatch parsed arguments to their handler."""
    from importlib import import_module

    from brainview.store.connect import busy_timeout

    busy_timeout()  # a bad BRAINVIEW_BUSY_TIMEOUT ends here: one line, exit 2
    module, _, function = str(args.run).partition(":")
    handler = getattr(import_module(f"brainview.commands.{module}"), function)
    return int(handler(args))
