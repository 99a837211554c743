"""The shipped JSON Schema and the intake agree: every example in the docs and every
item a consolidation plans passes both, a table of malformed proposals fails both, the
rules a schema cannot express are refused by intake alone, and the wheel carries the
schema.

No ``jsonschema`` dependency: :func:`validate` below implements the keywords the
schema uses (and fails loudly on any other, so the schema cannot outgrow it).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from brainview.core.grading import STANCES
from brainview.core.kinds import KINDS
from brainview.core.kinds_agent import AGENT_KINDS
from brainview.demo.generator import DEMO_NOW
from brainview.errors import InvalidInputError
from brainview.services import consolidate
from brainview.services.intake import parse_batch
from brainview.services.project import Project
from brainview.store.discovery import discover

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "brainview" / "schema" / "proposal.schema.json").read_text())
ANNOTATIONS = {"$schema", "$id", "title", "description", "default", "format", "$defs"}
TYPES = {
    "object": dict,
    "array": list,
    "string": str,
    "null": type(None),
    "boolean": bool,
}


def _is(value: Any, name: str) -> bool:
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if name == "integer":  # JSON Schema: any number without a fraction (3.0 included)
        return _is(value, "number") and float(value).is_integer()
    return isinstance(value, TYPES[name])


def validate(value: Any, schema: dict[str, Any], where: str = "$") -> list[str]:
    """Errors of ``value`` against ``schema`` (the subset of draft 2020-12 it uses)."""
    errors: list[str] = []
    for key, rule in schema.items():
        if key in ANNOTATIONS:
            continue
        if key == "$ref":
            name = rule.removeprefix("#/$defs/")
            errors += validate(value, SCHEMA["$defs"][name], where)
        elif key == "type":
            names = rule if isinstance(rule, list) else [rule]
            if not any(_is(value, n) for n in names):
                return [f"{where}: not {rule}"]
        elif key == "enum" and value not in rule:
            errors.append(f"{where}: not one of {rule}")
        elif key == "const" and value != rule:
            errors.append(f"{where}: not {rule!r}")
        elif key in ("minLength", "maxLength", "pattern") and isinstance(value, str):
            if key == "minLength" and len(value) < rule:
                errors.append(f"{where}: shorter than {rule}")
            if key == "maxLength" and len(value) > rule:
                errors.append(f"{where}: longer than {rule}")
            if key == "pattern" and not re.search(rule, value):
                errors.append(f"{where}: does not match {rule}")
        elif key in ("minimum", "maximum") and _is(value, "number"):
            if (key == "minimum" and value < rule) or (key == "maximum" and value > rule):
                errors.append(f"{where}: {key} {rule}")
        elif key in ("minItems", "maxItems", "uniqueItems", "items") and isinstance(value, list):
            if key == "minItems" and len(value) < rule:
                errors.append(f"{where}: fewer than {rule} items")
            if key == "maxItems" and len(value) > rule:
                errors.append(f"{where}: more than {rule} items")
            if key == "uniqueItems" and rule and len({json.dumps(v) for v in value}) != len(value):
                errors.append(f"{where}: repeated items")
            if key == "items":
                for i, item in enumerate(value):
                    errors += validate(item, rule, f"{where}[{i}]")
        elif key in ("properties", "required", "additionalProperties") and isinstance(value, dict):
            if key == "required":
                errors += [f"{where}.{k}: required" for k in rule if k not in value]
            if key == "properties":
                for k, sub in rule.items():
                    if k in value:
                        errors += validate(value[k], sub, f"{where}.{k}")
            if key == "additionalProperties" and rule is False:
                known = schema.get("properties", {})
                errors += [f"{where}.{k}: unknown field" for k in value if k not in known]
        elif key == "anyOf":
            if all(validate(value, s, where) for s in rule):
                errors.append(f"{where}: matches none of anyOf")
        elif key == "allOf":
            for sub in rule:
                errors += validate(value, sub, where)
        elif key == "if":
            if not validate(value, rule, where):
                errors += validate(value, schema.get("then", {}), where)
        elif key not in (*TYPE_SCOPED, "then"):
            raise AssertionError(f"validator does not know the keyword {key!r}")
    return errors


TYPE_SCOPED = (
    "minLength", "maxLength", "pattern", "minimum", "maximum", "minItems", "maxItems",
    "uniqueItems", "items", "properties", "required", "additionalProperties", "enum", "const",
)  # fmt: skip


def doc_examples() -> list[tuple[str, Any]]:
    """Every ```json / ```jsonl block of the proposal docs (curator guide included)."""
    out: list[tuple[str, Any]] = []
    for name in ("proposal-format.md", "curator.md"):
        text = (ROOT / "docs" / name).read_text()
        for k, (lang, body) in enumerate(re.findall(r"```(jsonl?)\n(.*?)```", text, re.S)):
            value = (
                json.loads(body)
                if lang == "json"
                else [json.loads(line) for line in body.splitlines() if line.strip()]
            )
            out.append((f"{name}#{k}", value))
    return out


def proposals_in(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def is_proposal_example(value: Any) -> bool:
    return all(isinstance(p, dict) and "kind" in p for p in proposals_in(value))


EXAMPLES = [(n, v) for n, v in doc_examples() if is_proposal_example(v)]


def test_docs_show_every_kind() -> None:
    shown = {p["kind"] for _n, v in EXAMPLES for p in proposals_in(v)}
    assert shown == set(KINDS)
    assert len(EXAMPLES) >= len(KINDS) + 2


@pytest.mark.parametrize(("name", "value"), EXAMPLES, ids=[n for n, _v in EXAMPLES])
def test_every_docs_example_passes_intake_and_schema(name: str, value: Any) -> None:
    parse_batch(value, DEMO_NOW)
    for proposal in proposals_in(value):
        assert validate(proposal, SCHEMA) == [], name


def test_schema_enumerates_the_core() -> None:
    assert SCHEMA["properties"]["kind"]["enum"] == list(KINDS)
    stance = SCHEMA["$defs"]["consultation"]["properties"]["stance"]["enum"]
    assert stance == list(STANCES)
    branches = {b["if"]["properties"]["kind"]["const"] for b in SCHEMA["allOf"]}
    assert branches == set(KINDS)


GOOD = {"kind": "retire_neuron", "params": {"neuron": "n-1"}}
SYN = {"pre": "r-a", "post": "r-b", "type": "relates_to", "weight": 0.207, "to": 0.1656}
POLICY = {"policy": "pol-1", "members": ["r-a", "r-b", "r-c"], "text": "Prefer merging twins."}
AGREED_INVALID: dict[str, dict[str, Any]] = {
    "no kind": {"params": {}},
    "unknown kind": {"kind": "explode"},
    "unknown field": {**GOOD, "evil": True},
    "params not object": {"kind": "note", "params": [1]},
    "blank neuron": {"kind": "retire_neuron", "params": {"neuron": "   "}},
    "missing params": {"kind": "retire_neuron"},
    "weight too big": {
        "kind": "add_synapse",
        "params": {"pre": "a", "post": "b", "type": "extends", "weight": 1.5},
    },
    "weight bool": {
        "kind": "set_synapse_weight",
        "params": {"pre": "a", "post": "b", "type": "extends", "weight": True},
    },
    "bad synapse type": {
        "kind": "remove_synapse",
        "params": {"pre": "a", "post": "b", "type": "x"},
    },
    "repeated ids": {"kind": "set_domain", "params": {"neurons": ["a", "a"], "domain": "d"}},
    "too many neurons": {
        "kind": "merge_neurons",
        "params": {"keep": "k", "merge": [f"n-{i}" for i in range(1001)]},
    },
    "empty merge": {"kind": "merge_neurons", "params": {"keep": "k", "merge": []}},
    "bad content mode": {
        "kind": "merge_neurons",
        "params": {"keep": "k", "merge": "m", "content": "x"},
    },
    "blank edit": {"kind": "edit_content", "params": {"neuron": "n", "content": " \n "}},
    "long domain": {"kind": "rename_domain", "params": {"old": "a", "new": "x" * 129}},
    "bad stance": {**GOOD, "consulted": [{"reflection": "r-1", "stance": "maybe"}]},
    "consulted without id": {**GOOD, "consulted": [{"stance": "support"}]},
    "consulted number": {**GOOD, "consulted": [7]},
    "note not text": {**GOOD, "consulted": [{"reflection": "r", "note": 3}]},
    "retrieved not ids": {**GOOD, "retrieved": [1]},
    "too many consulted": {**GOOD, "consulted": [f"r-{i}" for i in range(501)]},
    "blank id": {**GOOD, "id": "  "},
    "long id": {**GOOD, "id": "p" * 129},
    "empty skill": {**GOOD, "skill": ""},
    "rationale null": {**GOOD, "rationale": None},
    "runtime number": {**GOOD, "runtime": 5},
    "prune without reflection": {"kind": "prune_reflection", "params": {"retrievability": 0.4}},
    "prune plan without fingerprint": {
        "kind": "prune_reflection",
        "params": {"reflection": "r-1", "plan": {"id": "cons-1"}},
    },
    "prune basis not object": {
        "kind": "prune_reflection",
        "params": {"reflection": "r-1", "basis": [1]},
    },
    "decay no synapses": {"kind": "decay_synapses", "params": {"synapses": []}},
    "decay factor 1": {"kind": "decay_synapses", "params": {"synapses": [SYN], "factor": 1.0}},
    "decay floor too high": {"kind": "decay_synapses", "params": {"synapses": [SYN], "floor": 0.6}},
    "decay synapse without to": {
        "kind": "decay_synapses",
        "params": {"synapses": [{k: v for k, v in SYN.items() if k != "to"}]},
    },
    "decay synapse weight too small": {
        "kind": "decay_synapses",
        "params": {"synapses": [{**SYN, "weight": 0.01, "to": 0.008}]},
    },
    "decay to a string": {"kind": "decay_synapses", "params": {"synapses": [{**SYN, "to": "x"}]}},
    "decay bad type": {"kind": "decay_synapses", "params": {"synapses": [{**SYN, "type": "x"}]}},
    "decay same synapse twice": {"kind": "decay_synapses", "params": {"synapses": [SYN, SYN]}},
    "summarize blank text": {"kind": "summarize_community", "params": {**POLICY, "text": " \n"}},
    "summarize long text": {
        "kind": "summarize_community",
        "params": {**POLICY, "text": "x" * 20_001},
    },
    "summarize no members": {"kind": "summarize_community", "params": {**POLICY, "members": []}},
    "summarize weight null": {"kind": "summarize_community", "params": {**POLICY, "weight": None}},
    "summarize community bool": {
        "kind": "summarize_community",
        "params": {**POLICY, "community": True},
    },
    "summarize previous empty": {
        "kind": "summarize_community",
        "params": {**POLICY, "previous_policy": ""},
    },
    "retire policy without policy": {"kind": "retire_policy", "params": {"plan": None}},
}
AGREED_VALID: dict[str, dict[str, Any]] = {
    "minimal note": {"kind": "note"},
    "ids as one string": {"kind": "set_domain", "params": {"neurons": "n-1", "domain": "d"}},
    "null id and created_at": {**GOOD, "id": None, "created_at": None, "runtime": None},
    "empty id": {**GOOD, "id": ""},
    "extra params key": {"kind": "retire_neuron", "params": {"neuron": "n", "why": "kept"}},
    "bare consulted ids": {**GOOD, "consulted": ["r-1", "r-2"], "retrieved": ["r-3"]},
    "consulted extra key": {**GOOD, "consulted": [{"reflection": "r-1", "score": 0.9}]},
    "boundary weight": {
        "kind": "add_synapse",
        "params": {"pre": "a", "post": "b", "type": "contrasts", "weight": 0.05},
    },
    "prune bare": {"kind": "prune_reflection", "params": {"reflection": "r-1"}},
    "prune null plan and basis": {
        "kind": "prune_reflection",
        "params": {"reflection": "r-1", "plan": None, "basis": None, "retrievability": "?"},
    },
    "decay below the floor": {
        "kind": "decay_synapses",
        "params": {"synapses": [{**SYN, "weight": 0.06, "to": None}], "floor": 0.05},
    },
    "summarize minimal": {"kind": "summarize_community", "params": {**POLICY, "members": "r-a"}},
    "summarize full": {
        "kind": "summarize_community",
        "params": {**POLICY, "weight": 1.0, "community": None, "previous_policy": "p-9"},
    },
    "retire policy with plan": {
        "kind": "retire_policy",
        "params": {"policy": "p-1", "plan": {"id": "", "fingerprint": "f"}, "basis": {}},
    },
}
# Rules intake enforces that JSON Schema cannot express (the schema's descriptions say
# so): the schema accepts these, intake refuses them.
SCHEMA_CANNOT_SAY: dict[str, dict[str, Any]] = {
    "merge keep in merge": {"kind": "merge_neurons", "params": {"keep": "k", "merge": ["k"]}},
    "synapse to itself": {
        "kind": "add_synapse",
        "params": {"pre": "a", "post": "a", "type": "requires"},
    },
    "decay to is not weight x factor": {
        "kind": "decay_synapses",
        "params": {"synapses": [{**SYN, "to": 0.2}]},
    },
    "decay to null above the floor": {
        "kind": "decay_synapses",
        "params": {"synapses": [{**SYN, "to": None}]},
    },
    "decay repeated synapse key": {
        "kind": "decay_synapses",
        "params": {"synapses": [SYN, {**SYN, "weight": 0.3, "to": 0.24}]},
    },
    "decay synapse to itself": {
        "kind": "decay_synapses",
        "params": {"synapses": [{**SYN, "post": "r-a"}]},
    },
    "policy among members": {
        "kind": "summarize_community",
        "params": {**POLICY, "members": ["pol-1", "r-a"]},
    },
    "community with a fraction": {
        "kind": "summarize_community",
        "params": {**POLICY, "community": 3.0},
    },
}


@pytest.mark.parametrize("case", sorted(AGREED_INVALID))
def test_schema_and_intake_refuse_the_same_shapes(case: str) -> None:
    value = AGREED_INVALID[case]
    assert validate(value, SCHEMA), f"schema accepted {case}"
    with pytest.raises(InvalidInputError):
        parse_batch(value, DEMO_NOW)


def test_every_planned_consolidation_item_passes_the_schema(demo) -> None:  # type: ignore[no-untyped-def]
    with Project.open(discover(demo[0])) as project:
        plan = consolidate.plan(project, now=DEMO_NOW, in_process=True)
    proposals = [
        item.proposal(pid, plan.planned_at, plan.planner)
        for pid, item in zip(plan.proposal_ids(), plan.items, strict=True)
    ]
    assert {p["kind"] for p in proposals} == set(AGENT_KINDS)
    assert [validate(p, SCHEMA) for p in proposals] == [[]] * len(proposals)
    assert len(parse_batch(proposals, DEMO_NOW)) == len(proposals)


@pytest.mark.parametrize("case", sorted(SCHEMA_CANNOT_SAY))
def test_intake_refuses_what_the_schema_cannot_say(case: str) -> None:
    value = SCHEMA_CANNOT_SAY[case]
    assert validate(value, SCHEMA) == []
    with pytest.raises(InvalidInputError):
        parse_batch(value, DEMO_NOW)


@pytest.mark.parametrize("case", sorted(AGREED_VALID))
def test_schema_and_intake_accept_the_same_shapes(case: str) -> None:
    value = AGREED_VALID[case]
    assert validate(value, SCHEMA) == []
    parse_batch(value, DEMO_NOW)


def test_the_wheel_ships_the_schema(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    wheel = next(tmp_path.glob("brainview-*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        shipped = json.loads(zf.read("brainview/schema/proposal.schema.json"))
        assert "brainview/commands/helptext.py" in zf.namelist()
    assert shipped == SCHEMA
