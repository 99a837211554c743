"""The params walk's fast path (issue #21): ``_passes`` accepts exactly what the
precise walk accepts, so the walk's refusals and their key paths are unchanged while a
valid proposal costs one pass and one character search per kind of string.

The bounds are shrunk for the property so that hypothesis reaches every one of them
(depth, entries, string and key lengths, integers) with small values.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brainview.core import proposal_fields as fields
from brainview.core import proposal_rules as rules
from brainview.core.params import ParamError
from brainview.core.text_rules import FieldError

CHARS = st.sampled_from(["a", "b", " ", "\n", "\t", "\r", "\x00", "\x1b", "\u200b", "\u202e"])
TEXT = st.text(alphabet=CHARS, max_size=5) | st.text(max_size=3)
SCALAR = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-1_500, max_value=1_500)
    | st.floats(allow_nan=True, allow_infinity=True)
    | TEXT
)
VALUE = st.recursive(
    SCALAR,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=14,
)
KINDS = st.sampled_from(["edit_content", "summarize_community", "note", "set_domain", "nope"])


@pytest.fixture()
def small_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules, "MAX_PARAMS_DEPTH", 3)
    monkeypatch.setattr(rules, "MAX_PARAMS_ENTRIES", 10)
    monkeypatch.setattr(rules, "MAX_TEXT", 4)
    monkeypatch.setattr(rules, "MAX_REFLECTION_ID", 3)
    monkeypatch.setattr(rules, "MAX_INT", 1_000)


def _precise(kind: str, params: dict[str, Any]) -> str | None:
    """The walk's verdict without the fast path: its message, or ``None``."""
    walk = rules._Walk()
    known = rules.PARAM_KEYS.get(kind, frozenset())
    free = rules.FREE_TEXT_PARAMS.get(kind, frozenset())
    try:
        walk.count(len(params), "params")
        for key, item in params.items():
            where = walk.key(key, "params")
            walk.value(item, where, 1, key in free or key not in known)
    except ParamError as err:
        return str(err)
    return None


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(kind=KINDS, params=st.dictionaries(TEXT, VALUE, max_size=5))
def test_the_fast_path_accepts_exactly_what_the_walk_accepts(
    small_bounds: None, kind: str, params: dict[str, Any]
) -> None:
    verdict = _precise(kind, params)
    assert rules._passes(kind, params) is (verdict is None)
    if verdict is None:
        rules.walk_params(kind, params)
    else:
        with pytest.raises(ParamError) as err:
            rules.walk_params(kind, params)
        assert str(err.value) == verdict  # the same first problem, the same key path


@pytest.mark.parametrize(
    ("kind", "params", "why"),
    [
        ("note", {"neurons": ["ok", "bad\x1b[2J"]}, "params.neurons[1]: control character"),
        ("edit_content", {"neuron": "n", "content": "ok\r"}, "params.content: control char"),
        ("edit_content", {"neuron": "n", "content": "line\r\nnext"}, None),
        ("note", {"neurons": ["a\r", "\nb"]}, "params.neurons[0]: control character U+000D"),
        ("note", {"x": {"y": ["\u202e"]}}, "params.x.y[0]: bidi control U+202E"),
    ],
)
def test_strings_joined_for_one_search_hide_no_bad_character(
    kind: str, params: dict[str, Any], why: str | None
) -> None:
    if why is None:
        assert rules._passes(kind, params)
        rules.walk_params(kind, params)
        return
    assert not rules._passes(kind, params)
    with pytest.raises(ParamError, match=re.escape(why)):
        rules.walk_params(kind, params)


def test_a_subclass_of_a_json_type_takes_the_precise_walk() -> None:
    class Name(str):
        pass

    params = {"neurons": [Name("n-1")]}
    assert not rules._passes("note", params)
    rules.walk_params("note", params)  # still accepted, by the walk itself


BOUNDS: list[tuple[dict[str, Any], bool]] = [
    ({"a": [[1]]}, True),
    ({"a": [[[1]]]}, False),  # a container three levels down
    ({"a": {"b": {"c": {}}}}, False),
    ({"a": list(range(9))}, True),  # 1 + 9 entries
    ({"a": list(range(10))}, False),
    ({"a": "abcd"}, True),
    ({"a": "abcde"}, False),
    ({"abc": 1}, True),
    ({"abcd": 1}, False),
    ({"a": {"abcd": 1}}, False),
    ({"a": {1: 1}}, False),
    ({"a": 1_000, "b": -1_000}, True),
    ({"a": 1_001}, False),
    ({"a": [-1_001]}, False),
    ({"a": 1.5, "b": True, "c": None}, True),
    ({"a": float("nan")}, False),
    ({"a": [float("-inf")]}, False),
    ({"a": (1, 2)}, False),
    ({"a": {1, 2}}, False),
    ({"a": b"x"}, False),
]


@pytest.mark.parametrize(("params", "ok"), BOUNDS)
def test_every_bound_is_kept_by_the_fast_path(
    small_bounds: None, params: dict[str, Any], ok: bool
) -> None:
    assert rules._passes("note", params) is ok
    assert (_precise("note", params) is None) is ok


RID = st.sampled_from(["r-1", "r-2", "r-3", "", " ", "r\x1b", "r\u200b", "r-1\n"]) | st.integers()
ITEM = RID | st.fixed_dictionaries(
    {"reflection": RID},
    optional={
        "stance": st.sampled_from(["support", "oppose", "annotate", "bogus"]) | st.integers(),
        "note": st.none() | TEXT | st.just("n" * 2_001) | st.integers(),
        "extra": TEXT,
    },
)


def _one_by_one(check, value: object):  # type: ignore[no-untyped-def]
    """``check``'s verdict with the plain fast paths switched off: its result or message."""
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(fields, "consulted_plain", lambda _v: None)
            mp.setattr(fields, "plain_ids", lambda _ids: False)
            return check(value, 0, fields.Seen())
    except FieldError as err:
        return str(err)


@settings(max_examples=400, deadline=None)
@given(items=st.lists(ITEM, max_size=5) | ITEM)
def test_consulted_and_retrieved_read_in_one_go_as_one_by_one(items: object) -> None:
    for check in (fields.consulted, fields.retrieved):
        expected = _one_by_one(check, items)
        try:
            got = check(items, 0, fields.Seen())
        except FieldError as err:
            got = str(err)
        assert got == expected
