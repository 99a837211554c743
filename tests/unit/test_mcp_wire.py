"""``brainview mcp`` on the wire: every line a client sends gets an answer.

A real ``python -m brainview.cli mcp`` process is driven over raw stdio (the SDK's
client never sends a malformed line): each hostile line — truncated JSON, a
5,000-digit integer, a lone surrogate, 100,000 ``[``, bytes that are not UTF-8, a
duplicate key, JSON that is not a request, a line far over the limit — must get its
JSON-RPC error (``-32700`` / ``-32600``, exact shape), and the ``ping`` sent right
after it must still be answered.  A 64 MB line is skipped without being held.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from test_cli import ENV

from brainview.mcp.framing import MAX_LINE_BYTES, Lines, Oversized, line_limit

ROOT = Path(__file__).resolve().parents[2]
INIT = {
    "jsonrpc": "2.0", "id": 0, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "wire-test", "version": "1"}},
}  # fmt: skip


class Wire:
    """A ``brainview mcp`` child spoken to line by line."""

    def __init__(self, root: Path, env: dict[str, str] | None = None) -> None:
        full = {**os.environ, **ENV, "PYTHONPATH": str(ROOT), **(env or {})}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "brainview.cli", "mcp", str(root)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=full, cwd=str(ROOT),
        )  # fmt: skip
        self.pending = b""
        self.send(json.dumps(INIT).encode())
        assert self.answer()["id"] == 0
        self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def answer(self, timeout: float = 60.0) -> dict[str, Any]:
        """The next line the server writes (read from the descriptor, so two answers
        arriving in one read are both seen)."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.pending:
            ready, _, _ = select.select([fd], [], [], timeout)
            assert ready, "no answer: the client would wait forever"
            chunk = os.read(fd, 1 << 16)
            assert chunk, "the server closed stdout"
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return json.loads(line)  # type: ignore[no-any-return]

    def ping(self, rid: int) -> None:
        self.send(json.dumps({"jsonrpc": "2.0", "id": rid, "method": "ping"}).encode())
        assert self.answer() == {"jsonrpc": "2.0", "id": rid, "result": {}}

    def peak_kb(self) -> int:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        return int(next(ln for ln in status.splitlines() if ln.startswith("VmHWM")).split()[1])

    def close(self) -> str:
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        assert self.proc.wait(timeout=60) == 0
        err = self.proc.stderr.read().decode()
        assert "Traceback" not in err
        return err


def rpc_error(code: int, message: str, kind: str, rid: Any = None, **data: Any) -> dict[str, Any]:
    error = {"code": code, "message": message, "data": {"kind": kind, **data}}
    return {"jsonrpc": "2.0", "id": rid, "error": error}


PARSE = [  # (line, the message after "Parse error: ")
    (b'{"jsonrpc":"2.0","id":1,"method":"tools/li', "Unterminated string starting at: column 34"),
    (b'{"jsonrpc":"2.0","id":' + b"7" * 5000 + b',"method":"ping"}',
     "an integer of 5000 digits is out of range"),
    (b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"\\ud800"}}',
     "a \\u escape names a lone surrogate (not text)"),
    (b"[" * 100_000, "JSON nested deeper than 64 levels"),
    (b'{"a":' * 70 + b"1" + b"}" * 70, "JSON nested deeper than 64 levels"),
    (b'{"jsonrpc":"2.0","id":3,"method":"ping\xff\xfe"}', "not UTF-8 (byte 39 of the line)"),
    (b'{"jsonrpc":"2.0","id":4,"id":5,"method":"ping"}', 'duplicate key "id" in one object'),
    (b'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"propose",'
     b'"arguments":{"proposals":{"kind":"note","kind":"merge_neurons"}}}}',
     'duplicate key "kind" in one object'),
    (b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":NaN}}', "NaN is not valid JSON"),
    (b'{"jsonrpc":"2.0","id":8,"method":"ping","params":{"x":1e400}}',
     "number 1e400 is out of range (not finite)"),
    (b"\xef\xbb\xbf" + b'{"jsonrpc":"2.0","id":9,"method":"ping"}',
     "Unexpected UTF-8 BOM (decode using utf-8-sig): column 1"),
]  # fmt: skip
INVALID = [  # (line, the message after "Invalid Request: ", the id echoed)
    (b"42", "expected a JSON-RPC 2.0 message (an object), got int", None),
    (b'"ping"', "expected a JSON-RPC 2.0 message (an object), got str", None),
    (b"[]", "a batch (JSON array) is not supported: send one message per line", None),
    (b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
     "a batch (JSON array) is not supported: send one message per line", None),
    (b'{"a":1}', 'expected "jsonrpc": "2.0"', None),
    (b'{"jsonrpc":"1.0","id":10,"method":"ping"}', 'expected "jsonrpc": "2.0"', 10),
    (b'{"jsonrpc":"2.0","id":"r-11"}',
     'expected "method" (a request or notification), or "result" / "error"', "r-11"),
    (b'{"jsonrpc":"2.0","id":12,"method":7}', '"method" must be a string', 12),
    (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', '"id" must be a string or an integer', None),
    (b'{"jsonrpc":"2.0","id":null,"method":"ping"}',
     '"id" must be a string or an integer, not null', None),
    (b'{"jsonrpc":"2.0","id":14,"result":{},"error":{"code":1,"message":"x"}}',
     'a response holds "result" or "error", not both', 14),
    (b'{"jsonrpc":"2.0","id":15,"error":{"code":"x","message":"m"}}',
     "error.code: Input should be a valid integer, unable to parse string as an integer", 15),
    (b'{"jsonrpc":"2.0","id":13,"method":"ping","params":[1]}',
     "params: Input should be a valid dictionary", 13),
]  # fmt: skip


def test_every_malformed_line_gets_its_error_and_the_next_line_is_served(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    wire = Wire(root)
    wire.ping(100)
    for n, (line, message) in enumerate(PARSE):
        wire.send(line)
        assert wire.answer() == rpc_error(-32700, f"Parse error: {message}", "parse_error")
        wire.ping(200 + n)
    for n, (line, message, rid) in enumerate(INVALID):
        wire.send(line)
        got = wire.answer()
        assert got == rpc_error(-32600, f"Invalid Request: {message}", "invalid_request", rid)
        wire.ping(300 + n)
    wire.send(b"   ")  # a blank line is no message: skipped, nothing to answer
    wire.ping(400)
    wire.send(b'{"jsonrpc":"2.0","id":5,"method":"ping"')  # the last line, no newline, EOF
    assert wire.proc.stdin is not None
    wire.proc.stdin.close()
    assert wire.answer() == rpc_error(
        -32700, "Parse error: Expecting ',' delimiter: column 40", "parse_error"
    )
    assert wire.proc.wait(timeout=60) == 0


def test_a_huge_line_is_skipped_unheld_and_answered(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    wire = Wire(root)
    wire.ping(1)
    before = wire.peak_kb()
    size = 64 * 1024 * 1024
    head = b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"'
    wire.send(head + b"a" * size + b'"}}')
    message = (
        f"Invalid Request: a line of {len(head) + size + 3} bytes is longer than the "
        f"{MAX_LINE_BYTES}-byte limit; it was skipped unread"
    )
    assert wire.answer() == rpc_error(-32600, message, "too_large", limit=MAX_LINE_BYTES)
    wire.ping(3)
    grown = wire.peak_kb() - before
    assert grown < 24 * 1024, f"peak RSS grew {grown} kB for a 64 MB line"
    near = b'{"jsonrpc":"2.0","id":4,"method":"ping","params":{"x":"'
    wire.send(near + b"b" * (MAX_LINE_BYTES - len(near) - 3) + b'"}}')  # exactly the limit
    assert wire.answer() == {"jsonrpc": "2.0", "id": 4, "result": {}}
    wire.close()


def test_the_line_limit_can_be_lowered_not_raised(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    wire = Wire(root, {"BRAINVIEW_MCP_MAX_LINE": "2048"})
    wire.send(b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + b"c" * 3000 + b'"}}')
    got = wire.answer()
    assert got["id"] is None and got["error"]["code"] == -32600
    assert got["error"]["data"] == {"kind": "too_large", "limit": 2048}
    wire.ping(2)
    wire.close()
    env = {**os.environ, **ENV, "PYTHONPATH": str(ROOT)}
    for bad in (str(MAX_LINE_BYTES + 1), "10", "lots"):
        out = subprocess.run(
            [sys.executable, "-m", "brainview.cli", "mcp", str(root)],
            env={**env, "BRAINVIEW_MCP_MAX_LINE": bad}, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=60, cwd=str(ROOT),
        )  # fmt: skip
        assert out.returncode == 2 and out.stdout == ""
        assert out.stderr == (
            "brainview: BRAINVIEW_MCP_MAX_LINE: expected a number of bytes from 1024 to "
            f"{MAX_LINE_BYTES} (the limit can be lowered, not raised)\n"
        )


def test_lines_are_cut_across_chunks_and_never_held_past_the_limit() -> None:
    lines = Lines(limit=8)
    assert lines.feed(b"ab") == []
    assert lines.feed(b"c\nde\n\nfg") == [b"abc", b"de", b""]
    assert lines.feed(b"hijklm") == []  # 8 bytes: still within the limit
    assert lines.feed(b"nop") == []  # 11: dropped as it arrives
    assert len(lines._buffer) == 0
    assert lines.feed(b"qrs" * 1000 + b"\nok\n") == [Oversized(3011), b"ok"]
    assert lines.feed(b"12345678\n123456789\n") == [b"12345678", Oversized(9)]
    assert lines.feed(b"tail") == [] and lines.end() == [b"tail"]
    assert lines.end() == []
    assert line_limit({}) == MAX_LINE_BYTES
    assert line_limit({"BRAINVIEW_MCP_MAX_LINE": " 65536 "}) == 65536


def test_a_slow_client_is_answered_line_by_line(demo) -> None:  # type: ignore[no-untyped-def]
    """A message split over many writes, and two messages in one write."""
    root, _ = demo
    wire = Wire(root)
    assert wire.proc.stdin is not None
    for piece in (b'{"jsonrpc":"2.0",', b'"id":1,"meth', b'od":"ping"}'):
        wire.proc.stdin.write(piece)
        wire.proc.stdin.flush()
        time.sleep(0.05)
    wire.send(b'\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n{"jsonrpc":"2.0","id":3}')
    answers = {a["id"]: a for a in (wire.answer(), wire.answer(), wire.answer())}  # any order
    assert answers[1] == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert answers[2] == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert answers[3]["error"]["code"] == -32600
    wire.close()
