"""``proposals show`` and ``reflect list`` print titles where the console does (ids and
``[user:…]`` references named ``⟦title⟧``); ``--json`` keeps the ids and adds titles."""

from __future__ import annotations

import json
import re
from typing import Any

from test_cli import cli

USER = re.compile(r"\[user:n-[0-9a-f]+\]")


def test_reflect_list_names_user_references(demo: Any) -> None:
    root, _info = demo
    data = json.loads(cli("reflect", "list", "-C", str(root), "--limit", "200", "--json").stdout)
    named = [r for r in data["reflections"] if USER.search(r["content"])]
    assert named, "the demo's lessons refer to user neurons"
    row = named[0]
    assert USER.search(row["content"]) and not USER.search(row["display"])
    assert row["titles"] and all(t in row["display"] for t in row["titles"].values())
    human = cli("reflect", "list", "-C", str(root), "--limit", "200").stdout
    assert not USER.search(human) and "⟦" in human


def test_proposals_show_names_neurons_and_keeps_ids_in_json(demo: Any) -> None:
    root, info = demo
    listed = json.loads(cli("proposals", "list", "-C", str(root), "--json").stdout)
    pid = next(p["id"] for p in listed["proposals"] if p["kind"] == "merge_neurons")
    data = json.loads(cli("proposals", "show", pid, "-C", str(root), "--json").stdout)
    ids = re.findall(r"n-[0-9a-f]{6,}", data["summary"])
    assert ids and set(ids) <= set(data["titles"])  # ids kept, titles added
    assert not re.search(r"n-[0-9a-f]{6,}", data["summary_display"])
    human = cli("proposals", "show", pid, "-C", str(root)).stdout
    summary = next(x for x in human.splitlines() if x.startswith("  summary:"))
    assert not any(i in summary for i in ids) and "⟦" in summary
    assert not USER.search(human)


def test_recall_names_the_neurons_its_hits_cite(demo: Any, tmp_path: Any) -> None:
    root, info = demo
    draft = tmp_path / "d.json"
    draft.write_text(json.dumps({"kind": "retire_neuron", "params": {"neuron": info.user_ids[3]}}))
    data = json.loads(cli("recall", "--draft", str(draft), "-C", str(root), "--json").stdout)
    cited = {n for h in data["hits"] for n in h["components"]["refs_direct"]}
    in_text = {m[6:-1] for h in data["hits"] for m in USER.findall(h["text"])}
    assert cited | in_text and (cited | in_text) <= set(data["titles"])  # ids kept, titled
    human = cli("recall", "--draft", str(draft), "-C", str(root), "--no-log").stdout
    assert not USER.search(human) and "⟦" in human
    assert not any(f"cites: {n}" in human for n in cited)
