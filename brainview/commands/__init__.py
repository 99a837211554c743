"""Command handlers; each imports what it needs only when it runs."""

from __future__ import annotations

import argparse


def cmd_open(args: argparse.Namespace) -> int:
    """Open the console on a project."""
    from brainview.commands.basic import open_app

    return open_app(args)


def cmd_demo(args: argparse.Namespace) -> int:
    """Write demo brains (and open them)."""
    from brainview.commands.basic import demo

    return demo(args)


def cmd_stats(args: argparse.Namespace) -> int:
    """Print vital signs."""
    from brainview.commands.basic import stats

    return stats(args)


def cmd_init_agent(args: argparse.Namespace) -> int:
    """Create an empty agent brain."""
    from brainview.commands.basic import init_agent

    return init_agent(args)
