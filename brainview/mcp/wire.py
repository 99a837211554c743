"""One line from the client: a JSON-RPC message, or the error that answers it.

Every line the client sends gets a message or an answer — never silence, which would
leave the client waiting forever:

* ``-32700`` (parse error, ``id: null``): not UTF-8; not JSON; JSON that is not strict
  or not bounded (``NaN``, ``1e400``, an integer of more than 20 digits, a duplicate
  key, a ``\\u`` escape naming a lone surrogate, nesting deeper than :data:`MAX_DEPTH`);
* ``-32600`` (invalid request): longer than the line limit (:mod:`.framing`), or a JSON
  value that is not a JSON-RPC 2.0 message (``42``, ``[]``, ``{"a": 1}``, a batch) —
  with the message's ``id`` when it has a valid one, else ``null``.

The error's ``data`` is ``{"kind": …}``: ``parse_error``, ``too_large`` (with the
``limit`` in bytes) or ``invalid_request``.  Blank lines are skipped.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from mcp_types import (
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    jsonrpc_message_adapter,
)
from pydantic import BaseModel, ValidationError

from brainview.core.json_strict import loads_input
from brainview.core.safe_text import one_line
from brainview.mcp.framing import Oversized

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
MAX_DEPTH = 64
"""Deepest nesting of arrays and objects in one message (tool arguments included)."""
_LONE_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


@dataclass(frozen=True)
class WireError:
    """The JSON-RPC error response one bad line gets."""

    code: int
    message: str
    id: str | int | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def line(self) -> bytes:
        """The response, one line of JSON (UTF-8, ``\\n``-terminated)."""
        error = {"code": self.code, "message": self.message, "data": self.data}
        body = {"jsonrpc": "2.0", "id": self.id, "error": error}
        return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def _parse_error(detail: str) -> WireError:
    return WireError(PARSE_ERROR, f"Parse error: {one_line(detail, 300)}", None,
                     {"kind": "parse_error"})  # fmt: skip


def _invalid(detail: str, value: Any = None) -> WireError:
    rid = value.get("id") if isinstance(value, dict) else None
    if isinstance(rid, bool) or not isinstance(rid, str | int):
        rid = None
    return WireError(INVALID_REQUEST, f"Invalid Request: {detail}", rid,
                     {"kind": "invalid_request"})  # fmt: skip


def too_large(item: Oversized, limit: int) -> WireError:
    """The answer to a line longer than ``limit`` bytes (its bytes were never kept)."""
    return WireError(
        INVALID_REQUEST,
        f"Invalid Request: a line of {item.size} bytes is longer than the {limit}-byte "
        "limit; it was skipped unread",
        None,
        {"kind": "too_large", "limit": limit},
    )


def _shape_problem(value: Any) -> str | None:
    """What is wrong with a JSON value as a JSON-RPC 2.0 message, in words."""
    if isinstance(value, list):
        return "a batch (JSON array) is not supported: send one message per line"
    if not isinstance(value, dict):
        return f"expected a JSON-RPC 2.0 message (an object), got {type(value).__name__}"
    if value.get("jsonrpc") != "2.0":
        return 'expected "jsonrpc": "2.0"'
    if "method" in value and not isinstance(value["method"], str):
        return '"method" must be a string'
    rid = value.get("id")
    if isinstance(rid, bool) or not isinstance(rid, str | int | None):
        return '"id" must be a string or an integer'
    if "method" in value and "id" in value and rid is None:
        return '"id" must be a string or an integer, not null'
    if "method" in value:
        return None
    if "result" not in value and "error" not in value:
        return 'expected "method" (a request or notification), or "result" / "error"'
    if "result" in value and "error" in value:
        return 'a response holds "result" or "error", not both'
    return None


def _model(value: dict[str, Any]) -> type[BaseModel]:
    """The one message type ``value`` claims to be (for a precise complaint)."""
    if "method" in value:
        return JSONRPCRequest if "id" in value else JSONRPCNotification
    return JSONRPCResponse if "result" in value else JSONRPCError


def _check_tree(value: Any, strings: bool) -> str | None:
    """Nesting deeper than :data:`MAX_DEPTH`, or a string that is not text (a lone
    surrogate; checked only when ``strings``)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = [*node.keys(), *node.values()]
        elif isinstance(node, list):
            children = node
        else:
            if strings and isinstance(node, str):
                try:
                    node.encode("utf-8")
                except UnicodeEncodeError:
                    return "a \\u escape names a lone surrogate (not text)"
            continue
        if depth > MAX_DEPTH:
            return f"JSON nested deeper than {MAX_DEPTH} levels"
        stack.extend((child, depth + 1) for child in children)
    return None


def decode(item: bytes | Oversized, limit: int) -> JSONRPCMessage | WireError | None:
    """The message on one line, the error that answers it, or ``None`` (a blank line)."""
    if isinstance(item, Oversized):
        return too_large(item, limit)
    if not item.strip():
        return None
    try:
        text = item.decode("utf-8")
    except UnicodeDecodeError as err:
        return _parse_error(f"not UTF-8 (byte {err.start + 1} of the line)")
    try:
        value = loads_input(text)
    except json.JSONDecodeError as err:
        return _parse_error(f"{err.msg}: column {err.colno}")
    except RecursionError:
        return _parse_error(f"JSON nested deeper than {MAX_DEPTH} levels")
    except ValueError as err:
        return _parse_error(str(err))
    problem = _check_tree(value, strings=_LONE_SURROGATE.search(text) is not None)
    if problem is not None:
        return _parse_error(problem)
    problem = _shape_problem(value)
    if problem is not None:
        return _invalid(problem, value)
    try:
        return jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValidationError:
        pass
    try:
        _model(value).model_validate(value, by_name=False)
        problem = "not a JSON-RPC 2.0 message"
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "message"
        problem = f"{where}: {first['msg']}"
    return _invalid(problem, value)
