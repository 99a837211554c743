"""One rule for every string that reaches a brain (:mod:`brainview.core.text_rules`).

* Names refuse every character :func:`~brainview.core.safe_text.clean` would make
  visible, newline and tab included; free text refuses controls (but ``\\n``, ``\\t``,
  ``\\r\\n``), C1 and bidi controls; markup is text.
* The JSON Schema's ``name`` / ``freeText`` patterns agree with intake on every
  character of the Basic Multilingual Plane.
* Every string field of every kind, found by walking the JSON Schema (so a new kind or
  field cannot skip the rule), refuses ESC, NUL and a bidi override with the field named.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from test_cli_schema import EXAMPLES, SCHEMA, proposals_in, validate

from brainview.core.kinds import KINDS
from brainview.core.proposal_rules import FREE_TEXT_PARAMS, PARAM_KEYS
from brainview.core.safe_text import clean
from brainview.core.text_rules import describe, name_problem, text_problem
from brainview.demo.generator import DEMO_NOW
from brainview.errors import InvalidInputError
from brainview.services.intake import parse_batch

HOSTILE = {
    "ESC": ("a\x1b]0;PWNED\x07b", "control character U+001B not allowed"),
    "NUL": ("a\x00b", "control character U+0000 not allowed"),
    "RLO": ("a\u202eb", "bidi control U+202E not allowed"),
    "C1": ("a\x9b31mb", "control character U+009B not allowed"),
    "LRI": ("a\u2066b", "bidi control U+2066 not allowed"),
}


def test_describe_names_the_character() -> None:
    assert describe("\x1b") == "control character U+001B not allowed"
    assert describe("\u202e") == "bidi control U+202E not allowed"
    assert describe("\u200b") == "invisible character U+200B not allowed"
    assert describe("\ud800") == "lone surrogate U+D800 not allowed"


def test_names_refuse_exactly_what_clean_makes_visible_plus_newline() -> None:
    for cp in range(0x110000):
        ch = chr(cp)
        visible_change = clean(ch) != ch or ch in "\n\t"
        assert (name_problem(ch) is not None) == visible_change, f"U+{cp:04X}"


def test_free_text_refuses_controls_and_bidi_only() -> None:
    for cp in [*range(0x20), *range(0x7F, 0xA0)]:
        refused = text_problem(f"a{chr(cp)}b") is not None
        assert refused == (chr(cp) not in "\t\n"), f"U+{cp:04X}"
    for ch in "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069":
        assert text_problem(ch) == f"bidi control U+{ord(ch):04X} not allowed"
    assert text_problem("a\r\nb") is None and text_problem("a\rb") is not None
    for fine in (
        "[bold]x[/]",
        "[@click=app.quit]Q[/]",
        "👨\u200d👩\u200d👧",
        "می\u200cخواهم",
        "漢字",
    ):
        assert text_problem(fine) is None, fine
    assert name_problem("[bold]domain[/bold]") is None  # markup is text, names too
    assert name_problem("👨\u200d👩") is not None  # a name holds no invisible character


@pytest.mark.parametrize(
    ("pattern", "problem"), [("name", name_problem), ("freeText", text_problem)]
)
def test_schema_patterns_agree_with_intake_on_every_bmp_character(
    pattern: str, problem: Any
) -> None:
    rule = re.compile(SCHEMA["$defs"][pattern]["pattern"])
    for cp in range(0x10000):
        if 0xD800 <= cp <= 0xDFFF:
            continue  # lone surrogates: intake only (the schema's regex sees UTF-16 units)
        value = f"a{chr(cp)}b"
        assert (rule.search(value) is not None) == (problem(value) is None), f"U+{cp:04X}"
    assert (rule.search("a\r\nb") is not None) == (problem("a\r\nb") is None)


def test_param_keys_match_the_schema() -> None:
    for kind in KINDS:
        assert set(PARAM_KEYS[kind]) == set(SCHEMA["$defs"][kind]["properties"]), kind
    for kind, keys in FREE_TEXT_PARAMS.items():
        assert keys <= PARAM_KEYS[kind]


# -- every string field of every kind, from the schema --------------------------------


def resolve(node: dict[str, Any]) -> dict[str, Any]:
    """``node`` with its ``$ref`` and ``allOf`` merged in (``rules`` collects the text
    rules named on the way)."""
    out = {k: v for k, v in node.items() if k not in ("$ref", "allOf")}
    out.setdefault("rules", set())
    for sub in ([{"$ref": node["$ref"]}] if "$ref" in node else []) + node.get("allOf", []):
        if "$ref" in sub:
            name = sub["$ref"].removeprefix("#/$defs/")
            if name in ("name", "freeText"):
                out["rules"] = out["rules"] | {name}
            inner = resolve(SCHEMA["$defs"][name])
            out["rules"] = out["rules"] | inner.pop("rules")
            out = {**inner, **out}
    return out


def takes_strings(node: dict[str, Any]) -> bool:
    types = node.get("type")
    types = [types] if isinstance(types, str) else types
    if types is None and "enum" not in node:
        return not ("properties" in node or "anyOf" in node)  # untyped: anything goes
    return "string" in (types or []) or any(isinstance(e, str) for e in node.get("enum", []))


def string_fields(
    node: dict[str, Any], path: tuple[Any, ...]
) -> list[tuple[tuple[Any, ...], dict]]:
    """``(path, resolved node)`` of every place a string may go under ``node``."""
    node = resolve(node)
    out = [(path, node)] if takes_strings(node) else []
    for key, sub in node.get("properties", {}).items():
        out += string_fields(sub, (*path, key))
    if "items" in node:
        out += string_fields(node["items"], (*path, 0))
    for alt in node.get("anyOf", []):
        alt = resolve(alt)
        if takes_strings(alt):
            out.append((path, {**alt, "rules": alt["rules"] | node["rules"]}))
        if "items" in alt:
            out += string_fields(alt["items"], (*path, 0))
        if "properties" in alt:
            out += string_fields(alt, path)
    return out


def base_proposals() -> dict[str, dict[str, Any]]:
    """A valid proposal of every kind (the docs' examples), with every optional object
    (plan, a consultation with a note, a retrieved id) present."""
    out: dict[str, dict[str, Any]] = {}
    for _name, value in EXAMPLES:
        for p in proposals_in(value):
            out.setdefault(p["kind"], copy.deepcopy(p))
    for kind, p in out.items():
        p.update(
            id="p-1", skill="curator", rationale="why", runtime="rt", retrieved=["r-2"],
            consulted=[{"reflection": "r-1", "stance": "support", "note": "how"}],
            created_at="2026-11-29T14:05:00+00:00",
        )  # fmt: skip
        p.setdefault("params", {})
        if kind in ("prune_reflection", "decay_synapses", "summarize_community", "retire_policy"):
            p["params"]["plan"] = {"id": "cons-1", "fingerprint": "f"}
    assert set(out) == set(KINDS)
    return out


def put(doc: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    *head, last = path
    node: Any = doc
    for step in head:
        if isinstance(step, int):
            if not isinstance(node, list) or not node:
                raise LookupError
            node = node[step]
        else:
            node = node.setdefault(step, {}) if isinstance(node, dict) else None
            if node is None:
                raise LookupError
    if isinstance(last, int):
        if not isinstance(node, list) or not node:
            raise LookupError
        if not isinstance(node[last], str) and path[0] != "consulted":
            raise LookupError  # an object item: its own fields are enumerated
    node[last] = value  # (a consultation object may be given as a bare id)


def dotted(path: tuple[Any, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


def all_cases() -> list[tuple[str, tuple[Any, ...], dict[str, Any]]]:
    cases = []
    for kind in base_proposals():
        branch = next(b for b in SCHEMA["allOf"] if b["if"]["properties"]["kind"]["const"] == kind)
        top = {**SCHEMA, "properties": {**SCHEMA["properties"], **branch["then"]["properties"]}}
        for path, node in string_fields({k: v for k, v in top.items() if k != "allOf"}, ()):
            if path in (("kind",),):
                continue
            cases.append((kind, path, node))
    return cases


CASES = all_cases()


def test_the_walk_finds_every_kind_and_its_params() -> None:
    found = {
        (kind, path[1]) for kind, path, _n in CASES if path[:1] == ("params",) and len(path) > 1
    }
    numbers = {"weight", "factor", "floor", "community", "basis", "line", "block"}  # no string
    wanted = {(k, key) for k in KINDS for key in PARAM_KEYS[k] if key not in numbers}
    assert wanted == found
    assert len(CASES) > 80


@pytest.mark.parametrize("hostile", sorted(HOSTILE))
def test_every_string_field_of_every_kind_refuses_hostile_characters(hostile: str) -> None:
    value, reason = HOSTILE[hostile]
    checked = 0
    for kind, path, node in CASES:
        doc = base_proposals()[kind]
        try:
            put(doc, path, value)
        except LookupError:
            continue
        where = dotted(path)
        if path[0] == "consulted" and len(path) == 2:
            where += ".reflection"  # a bare id is the reflection
        with pytest.raises(InvalidInputError) as err:
            parse_batch([doc], DEMO_NOW)
        message = err.value.message
        assert message.startswith(f"proposal[0].{where}"), (kind, where, message)
        if node["rules"] or path[0] == "params":
            assert message == f"proposal[0].{where}: {reason}", (kind, where, message)
        if node["rules"]:
            assert validate(doc, SCHEMA), f"the schema accepts {hostile} in {kind} {where}"
        checked += 1
    assert checked > 80


def test_names_refuse_a_newline_and_free_text_keeps_it() -> None:
    for kind, path, node in CASES:
        doc = base_proposals()[kind]
        try:
            put(doc, path, "line one\nline two")
        except LookupError:
            continue
        free = "freeText" in node["rules"] or (
            path[0] == "params" and path[-1] in FREE_TEXT_PARAMS.get(kind, ())
        )
        if free:
            parse_batch([doc], DEMO_NOW)
        elif "name" in node["rules"]:
            with pytest.raises(InvalidInputError, match="U\\+000A not allowed"):
                parse_batch([doc], DEMO_NOW)


def test_unknown_params_are_free_text_and_their_keys_names() -> None:
    base = {"kind": "retire_neuron", "params": {"neuron": "n-1"}}
    parse_batch([{**base, "params": {"neuron": "n-1", "why": "two\nlines\tand [b]markup[/b]"}}])
    for params, where, reason in (
        ({"why": "a\x1bb"}, "params.why", "control character U+001B not allowed"),
        (
            {"deep": {"er": ["ok", "a\u202eb"]}},
            "params.deep.er[1]",
            "bidi control U+202E not allowed",
        ),
        ({"k\x1b": 1}, 'params["k\\u001b"]', "key: control character U+001B not allowed"),
    ):
        with pytest.raises(InvalidInputError) as err:
            parse_batch([{**base, "params": {"neuron": "n-1", **params}}])
        assert err.value.message == f"proposal[0].{where}: {reason}"
