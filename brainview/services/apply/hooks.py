"""Named steps of the two-file apply protocol, with one optional observer.

The protocol (see :mod:`brainview.services.apply`) calls :func:`step` at each point
where a crash leaves a distinct state on disk.  Production code installs no hook;
the crash-recovery tests install one that SIGKILLs the process at a chosen step and
then check that :func:`~brainview.services.apply.recover` repairs both brains.
"""

from __future__ import annotations

from collections.abc import Callable

STEPS = (
    "decision.before_commit",
    "decision.committed",
    "apply.user_chunk",
    "apply.user_mid_txn",
    "apply.user_committed",
    "apply.done",
    "revert.before_commit",
    "revert.agent_committed",
    "revert.user_chunk",
    "revert.user_mid_txn",
    "revert.user_committed",
    "revert.done",
)
"""Every step, in protocol order (``decision.*``/``apply.*`` for an accept,
``revert.*`` for the undo of an applied decision).  ``*.user_chunk`` is announced
after each chunk of a streamed plan (:mod:`.stream_exec`), inside the transaction;
other plans never reach it."""

STREAM_STEPS = ("apply.user_chunk", "revert.user_chunk")
"""The steps only a streamed plan reaches."""

_hook: Callable[[str], None] | None = None


def set_step_hook(hook: Callable[[str], None] | None) -> None:
    """Install (or, with ``None``, remove) the observer called at every step."""
    global _hook
    _hook = hook


def step(name: str) -> None:
    """Announce that the protocol reached ``name`` (one of :data:`STEPS`)."""
    assert name in STEPS, name
    if _hook is not None:
        _hook(name)
