"""The stdio transport: bounded lines in, one answer for every line.

It replaces the SDK's ``stdio_server``, which reads a whole line however long it is
(a 200 MB line took the server to 948 MB) and drops a line it cannot parse without a
word (the client then waits forever).  Here:

* stdin is read a chunk at a time and cut by :class:`~brainview.mcp.framing.Lines`:
  at most one line limit (4 MiB) is ever held, an over-long line is skipped as it
  arrives and answered ``-32600``;
* each line goes through :func:`~brainview.mcp.wire.decode`: a message goes to the
  server, a bad line is answered at once with its JSON-RPC error (:mod:`.wire`), and
  the next line is served;
* as in the SDK, while serving, descriptor 0 reads the null device and descriptor 1
  writes to stderr, so stray output from a library cannot corrupt the wire; both are
  put back on exit.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.to_thread
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from brainview.mcp import wire
from brainview.mcp.framing import CHUNK_BYTES, Lines


class _Claimed:
    """A standard descriptor taken over: the wire on a private copy, ``fd`` diverted."""

    def __init__(self, fd: int, diversion: int) -> None:
        self.fd = fd
        self.private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
        try:
            os.dup2(diversion, fd)
        finally:
            os.close(diversion)

    def restore(self) -> None:
        """Point ``fd`` at the wire again.  The private copy stays open: a reader thread
        may still be blocked on it."""
        os.dup2(self.private, self.fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


@asynccontextmanager
async def stdio_transport(
    limit: int,
) -> AsyncIterator[tuple[MemoryObjectReceiveStream[Any], MemoryObjectSendStream[Any]]]:
    """``(read_stream, write_stream)`` for the SDK's server, over this process's stdio."""
    stdin = _Claimed(0, os.open(os.devnull, os.O_RDONLY))
    try:
        stdout = _Claimed(1, os.dup(2))
    except BaseException:
        stdin.restore()
        raise
    to_server, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, from_server = anyio.create_memory_object_stream[SessionMessage](0)
    lock = anyio.Lock()
    gone = anyio.Event()  # the client closed its end: nothing more can be answered

    async def emit(data: bytes) -> None:
        async with lock:
            if gone.is_set():
                return
            try:
                await anyio.to_thread.run_sync(_write_all, stdout.private, data)
            except OSError:  # BrokenPipeError and the like
                gone.set()

    async def reader() -> None:
        lines = Lines(limit)
        async with to_server:
            while True:
                chunk = await anyio.to_thread.run_sync(
                    os.read, stdin.private, CHUNK_BYTES, abandon_on_cancel=True
                )
                for item in lines.feed(chunk) if chunk else lines.end():
                    got = wire.decode(item, limit)
                    if isinstance(got, wire.WireError):
                        await emit(got.line())
                    elif got is not None:
                        try:
                            await to_server.send(SessionMessage(got))
                        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                            return  # the server has stopped reading
                if not chunk:
                    return

    async def writer() -> None:
        async with from_server:
            async for message in from_server:
                text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await emit(text.encode("utf-8") + b"\n")

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(reader)
            tasks.start_soon(writer)
            yield read_stream, write_stream
    finally:
        stdout.restore()
        stdin.restore()
