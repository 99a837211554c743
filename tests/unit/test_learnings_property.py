"""Hypothesis: over many generated ``.learnings/`` trees, moving entries touches only the
moved line (pure edit) and a whole round trip — import, plan, accept every move, undo
every decision — leaves every byte of every file as it was."""

from __future__ import annotations

import tempfile
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_cli import cli
from test_learnings import NOW, pending, session, snapshot

from brainview.core.learnings_edit import Move, apply_moves, ending_of
from brainview.core.learnings_parse import parse, split_lines
from brainview.services.learnings.planning import plan_moves
from brainview.services.project import Project
from brainview.store.discovery import discover

WORDS = ("tests", "pytest", "commit", "pnpm", "bullets", "deploy", "friday", "retry", "logs")
HOSTILE = st.sampled_from([b"", b"\x1b[31m", b"\xff\xfe", b"\xe2\x80\xae", b"[b]x[/b]", b"\t"])
ENDINGS = st.sampled_from([b"\n", b"\r\n"])


@st.composite
def entry_line(draw: st.DrawFn) -> bytes:
    ago = draw(st.integers(0, 140))
    date = (NOW - timedelta(days=ago)).date().isoformat().encode()
    picked = draw(st.lists(st.sampled_from(WORDS), min_size=2, max_size=4))
    what = b" ".join(w.encode() for w in picked)
    return b"- [" + date + b"] " + what + b" " + draw(HOSTILE) + b" \xe2\x86\x92 do " + what


FREE = st.one_of(
    st.sampled_from([b"", b"# Heading", b"prose line", b"  - sub note", b"```", b"---"]),
    st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")),
)


@st.composite
def md_file(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(st.one_of(entry_line(), entry_line(), FREE), min_size=0, max_size=12))
    out = b"".join(line + draw(ENDINGS) for line in lines)
    if out and draw(st.booleans()):
        out = out.rstrip(b"\r\n")  # no final newline
    return out


TREES = st.fixed_dictionaries(
    {"HOT.md": md_file(), "corrections.md": md_file()},
    optional={"projects/web.md": md_file(), "domains/code.md": md_file()},
)


@settings(max_examples=300, deadline=None)
@given(files=TREES, data=st.data())
def test_a_move_changes_only_the_moved_line(files: dict[str, bytes], data: st.DataObject) -> None:
    entries = [e for rel, b in files.items() for e in parse(rel, b).entries if e.block_id is None]
    if not entries:
        return
    e = data.draw(st.sampled_from(entries))
    target = data.draw(st.sampled_from(sorted(set(files) - {e.file}) + ["archive/x.md"]))
    after = apply_moves(dict(files), [Move(e.file, e.line, e.raw, target)])
    assert set(after) == {e.file, target}
    old = split_lines(files[e.file])
    new = split_lines(after[e.file] or b"")
    gone = [i for i in range(len(old)) if old[:i] + old[i + 1 :] == new]
    assert gone and old[gone[0]].rstrip(b"\n").rstrip(b"\r") == e.raw.rstrip(b"\r")
    head = files.get(target) or b""
    end = ending_of(files.get(target))
    if head and not head.endswith(b"\n"):
        head += end
    assert after[target] == head + e.raw.rstrip(b"\r") + end


def _check_one_move(before: dict[str, bytes], after: dict[str, bytes], params: dict) -> None:  # type: ignore[type-arg]
    changed = {r for r in set(before) | set(after) if before.get(r) != after.get(r)}
    assert changed <= {params["source"], params["target"]}
    old = split_lines(before[params["source"]])
    new = split_lines(after.get(params["source"], b""))
    assert any(old[:i] + old[i + 1 :] == new for i in range(len(old)))
    prior = before.get(params["target"], b"")
    assert after[params["target"]].startswith(prior.rstrip(b"\r\n") if prior else b"")
    assert after[params["target"]][: len(prior)].rstrip(b"\r\n") == prior.rstrip(b"\r\n")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=TREES)
def test_round_trip_accept_all_then_undo_all_is_byte_exact(files: dict[str, bytes]) -> None:
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        ws = Path(tmp) / "ws"
        root = ws / ".learnings"
        for rel, data in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
        assert cli("learnings", "import", str(root), "--init").returncode == 0
        original = snapshot(root)
        with Project.open(discover(ws), write_agent=True) as project:
            plan_moves(project, now=NOW)
        decisions = []
        for pid, params in sorted(pending(ws).items()):
            if params["target"].startswith("../"):
                continue  # graduation writes beside the tree: checked in test_learnings
            before = snapshot(root)
            with session(ws) as s:
                (result,) = s.decide([pid], "accept")
            decisions.append(result.decision_id)
            _check_one_move(before, snapshot(root), params)
        event(f"moves: {min(len(decisions), 3)}+")
        for did in reversed(decisions):
            with session(ws) as s:
                s.undo(did)
        assert snapshot(root) == original
