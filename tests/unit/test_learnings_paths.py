"""A ``.learnings/`` tree's files stay inside the open project (issue 28).

Every case was a measured break: a linked ``archive/`` or ``.brainview-backups``, a
curator's ``learning_tier`` target through a linked directory, a copied project or a
tampered agent brain whose recorded root sends writes elsewhere, an import outside the
project, and a file swapped for a link between the check and the read.  Each test
asserts what is on disk afterwards — inside and outside the tree — and what was said.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest
from test_cli import cli
from test_learnings import HOT_MD, NOW, TRIPLE, agent_sql, pending, plan, session, snapshot, tree

from brainview.errors import BadPathError, ExitCode
from brainview.services.learnings.importing import import_tree
from brainview.services.project import Project
from brainview.store.discovery import discover

OLD_WARM = f"- [{(NOW - timedelta(days=120)).date()}] wrote tabs → use spaces\n".encode()


def outside_dir(tmp_path: Path, name: str = "elsewhere") -> Path:
    out = tmp_path / name
    out.mkdir()
    return out


def files_under(path: Path) -> dict[str, bytes]:
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in path.rglob("*") if p.is_file()}


def proposal_of(ws: Path, action: str) -> str:
    return next(pid for pid, p in pending(ws).items() if p["action"] == action)


def agent_write(ws: Path, sql: str, *args: object) -> None:
    conn = sqlite3.connect(ws / ".spikuit" / "agent" / "circuit.db")
    try:
        with conn:
            conn.execute(sql, args)
    finally:
        conn.close()


def set_params(ws: Path, pid: str, **changes: object) -> None:
    """What a curator (or anyone writing the agent brain) can put in a queued proposal."""
    (params,) = agent_sql(ws, "SELECT params_json FROM brainview_proposal WHERE id = ?", pid)[0]
    new = json.dumps({**json.loads(params), **changes})
    agent_write(ws, "UPDATE brainview_proposal SET params_json = ? WHERE id = ?", new, pid)


def set_root(ws: Path, path: str) -> None:
    agent_write(ws, "UPDATE brainview_learning_root SET path = ?", path)


# -- symbolic links inside the tree ----------------------------------------------------


def test_an_archive_move_into_a_linked_archive_dir_writes_nothing(tmp_path: Path) -> None:
    ws, root = tree(tmp_path, {"HOT.md": b"# HOT\n", "corrections.md": OLD_WARM})
    plan(ws)
    archive = proposal_of(ws, "archive")
    away = outside_dir(tmp_path)
    (away / "corrections.md").write_bytes(b"# not the tree's\n")
    (root / "archive").symlink_to(away, target_is_directory=True)
    before, outside = snapshot(root), files_under(away)
    with session(ws) as s, pytest.raises(BadPathError, match="symbolic link"):
        s.decide([archive], "accept")
    assert files_under(away) == outside
    assert snapshot(root) == before and archive in pending(ws)


def test_a_linked_backup_dir_receives_no_backup(tmp_path: Path) -> None:
    ws, root = tree(tmp_path, {"HOT.md": HOT_MD, "corrections.md": TRIPLE})
    plan(ws)
    promote = proposal_of(ws, "promote")
    away = outside_dir(tmp_path)
    (root / ".brainview-backups").symlink_to(away, target_is_directory=True)
    before = snapshot(root)
    with session(ws) as s, pytest.raises(BadPathError, match="symbolic link"):
        s.decide([promote], "accept")
    assert files_under(away) == {} and list(away.iterdir()) == []
    assert snapshot(root) == before and promote in pending(ws)


def test_a_linked_tree_root_is_not_imported(tmp_path: Path) -> None:
    away = outside_dir(tmp_path)
    (away / "HOT.md").write_bytes(HOT_MD)
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".learnings").symlink_to(away, target_is_directory=True)
    out = cli("learnings", "import", str(ws / ".learnings"), "--init")
    assert out.returncode == ExitCode.BAD_PATH, out.stderr
    assert "symbolic link" in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


# -- tier-move targets: only the layout's files ----------------------------------------


def _curated(ws: Path, params: dict[str, object]) -> subprocess.CompletedProcess[str]:
    (rid,) = agent_sql(ws, "SELECT neuron_id FROM brainview_learning WHERE file = 'HOT.md'")[0]
    doc = {
        "id": "p-curated",
        "skill": "learnings",
        "kind": "learning_tier",
        "params": {"entry": rid, "line": 6, **params},
        "consulted": [{"reflection": rid, "stance": "oppose"}],
    }
    path = ws / "p.json"
    path.write_text(json.dumps(doc))
    return cli("propose", str(path), "-C", str(ws), "--json")


BAD_TARGETS = [
    ("demote", "HOT.md", "ext/.bashrc", "HOT", "WARM"),  # a dot-name, not Markdown
    ("demote", "HOT.md", "archive/corrections.md", "HOT", "WARM"),  # COLD, not WARM
    ("demote", "HOT.md", "index.md", "HOT", "WARM"),  # skipped by the layout
    ("promote", "corrections.md", "corrections2.md", "WARM", "HOT"),  # not a HOT file
    ("archive", "corrections.md", "archive/other.md", "WARM", "COLD"),  # not archive/<same>
    ("graduate", "HOT.md", "../notes.md", "HOT", "GRADUATED"),  # only ../AGENTS.md
    ("retire", "HOT.md", "archive/elsewhere.md", "HOT", "COLD"),  # only invalidated.md
    ("demote", "archive/x.md", "corrections.md", "HOT", "WARM"),  # source not HOT
]


@pytest.mark.parametrize(("action", "source", "target", "frm", "to"), BAD_TARGETS)
def test_intake_refuses_a_target_the_layout_does_not_allow(
    tmp_path: Path, action: str, source: str, target: str, frm: str, to: str
) -> None:
    ws, root = tree(tmp_path, {"HOT.md": HOT_MD})
    params = {"action": action, "source": source, "target": target, "tier_from": frm,
              "tier_to": to}  # fmt: skip
    out = _curated(ws, params)
    assert out.returncode == ExitCode.INVALID_INPUT, out.stdout + out.stderr
    assert "params." in out.stdout + out.stderr and "Traceback" not in out.stderr
    assert pending(ws) == {}


def test_accept_refuses_a_tampered_target_through_a_linked_dir(tmp_path: Path) -> None:
    ws, root = tree(tmp_path, {"HOT.md": HOT_MD, "corrections.md": TRIPLE})
    home = outside_dir(tmp_path, "home")
    (home / ".bashrc").write_bytes(b"# rc\n")
    (home / "x.md").write_bytes(b"# x\n")
    (root / "ext").symlink_to(home, target_is_directory=True)
    plan(ws)
    demote = proposal_of(ws, "demote")
    before, outside = snapshot(root), files_under(home)
    for target in ("ext/.bashrc", "ext/x.md", "../../home/x.md"):
        set_params(ws, demote, target=target)  # written straight into the agent brain
        with session(ws) as s, pytest.raises(BadPathError, match="refused"):
            s.decide([demote], "accept")
        assert files_under(home) == outside and snapshot(root) == before
    assert demote in pending(ws)


def test_a_curated_target_allowed_at_intake_is_pinned_at_accept(tmp_path: Path) -> None:
    ws, root = tree(tmp_path, {"HOT.md": HOT_MD, "corrections.md": TRIPLE})
    params = {"action": "demote", "source": "HOT.md", "target": "projects/web.md",
              "tier_from": "HOT", "tier_to": "WARM"}  # fmt: skip
    out = _curated(ws, params)  # a WARM file: the entry's skill is not known at intake
    assert out.returncode == 0, out.stdout + out.stderr
    before = snapshot(root)
    with session(ws) as s, pytest.raises(BadPathError, match="corrections.md"):
        s.decide(["p-curated"], "accept")
    assert snapshot(root) == before and not (root / "projects").exists()


# -- the recorded root: relative to the open project -----------------------------------


def test_the_root_is_recorded_relative_to_the_project(tmp_path: Path) -> None:
    ws, _root = tree(tmp_path, {"HOT.md": HOT_MD})
    assert agent_sql(ws, "SELECT path, hot_file FROM brainview_learning_root") == [
        (".learnings", "HOT.md")
    ]


def test_a_copied_project_rewrites_its_own_tree_never_the_original(tmp_path: Path) -> None:
    ws, root = tree(tmp_path, {"HOT.md": HOT_MD, "corrections.md": TRIPLE})
    plan(ws)
    promote = proposal_of(ws, "promote")
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(ws), str(copy)], check=True)
    original = snapshot(root)
    with session(copy) as s:
        s.decide([promote], "accept")
    assert snapshot(root) == original
    lines = TRIPLE.splitlines(keepends=True)
    assert (copy / ".learnings" / "HOT.md").read_bytes() == HOT_MD + lines[0]


def test_a_legacy_absolute_root_is_used_only_inside_the_open_project(tmp_path: Path) -> None:
    ws, root = tree(tmp_path, {"HOT.md": HOT_MD, "corrections.md": TRIPLE})
    plan(ws)
    promote = proposal_of(ws, "promote")
    copy = tmp_path / "copy"
    shutil.copytree(ws, copy, symlinks=True)
    set_root(copy, str(root))  # an older brain: the original's absolute path
    original, copied = snapshot(root), snapshot(copy / ".learnings")
    with session(copy) as s, pytest.raises(BadPathError, match="outside the open project"):
        s.decide([promote], "accept")
    assert snapshot(root) == original and snapshot(copy / ".learnings") == copied
    set_root(copy, str(copy / ".learnings"))  # an absolute path inside: its relative part
    with session(copy) as s:
        s.decide([promote], "accept")
    assert snapshot(root) == original and snapshot(copy / ".learnings") != copied


@pytest.mark.parametrize("recorded", ["{away}", "../elsewhere", ".spikuit", "a/../../x", ""])
def test_an_agent_brain_cannot_point_writes_elsewhere(tmp_path: Path, recorded: str) -> None:
    ws, root = tree(tmp_path, {"HOT.md": HOT_MD, "corrections.md": TRIPLE})
    plan(ws)
    away = outside_dir(tmp_path)
    for rel, data in snapshot(root).items():
        (away / rel).write_bytes(data)
    set_root(ws, recorded.format(away=away))
    promote = proposal_of(ws, "promote")
    before, outside = snapshot(root), files_under(away)
    with session(ws) as s, pytest.raises(BadPathError):
        s.decide([promote], "accept")
    assert files_under(away) == outside and snapshot(root) == before
    shown = cli("learnings", "plan", str(ws))
    assert shown.returncode == ExitCode.BAD_PATH and "Traceback" not in shown.stderr


def test_importing_a_tree_outside_the_project_is_refused(tmp_path: Path) -> None:
    ws, _root = tree(tmp_path, {"HOT.md": HOT_MD})
    stray = tmp_path / "stray" / ".learnings"
    stray.mkdir(parents=True)
    (stray / "corrections.md").write_bytes(TRIPLE)
    rows = agent_sql(ws, "SELECT COUNT(*) FROM neuron")
    out = cli("learnings", "import", str(stray), "--into", str(ws))
    assert out.returncode == ExitCode.BAD_PATH
    assert "outside the project" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert agent_sql(ws, "SELECT COUNT(*) FROM neuron") == rows
    assert agent_sql(ws, "SELECT path FROM brainview_learning_root") == [(".learnings",)]


# -- import reads what it checked ------------------------------------------------------


def test_a_file_swapped_for_a_link_after_its_check_is_not_read_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The swap happens right after the first stat that sees the file (whichever call
    the import makes): the bytes imported are the checked file's, never the secret."""
    ws, root = tree(tmp_path, {"HOT.md": HOT_MD})
    secret = tmp_path / "secret.md"
    secret.write_bytes(b"- [2026-11-01] the secret -> leaked\n")
    target = root / "corrections.md"
    target.write_bytes(TRIPLE)
    ino = target.stat().st_ino
    swapped: list[bool] = []

    def swap_after(real):  # type: ignore[no-untyped-def]
        def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
            st = real(*args, **kwargs)
            if not swapped and st.st_ino == ino:
                swapped.append(True)
                os.rename(target, root / ".kept")  # the checked inode stays alive
                os.symlink(secret, target)
            return st

        return wrapper

    for name in ("lstat", "stat", "fstat"):
        monkeypatch.setattr(os, name, swap_after(getattr(os, name)))
    with Project.open(discover(ws), write_agent=True) as project:
        import_tree(project, root, now=NOW)
    monkeypatch.undo()
    assert swapped
    contents = [r[0] for r in agent_sql(ws, "SELECT content FROM neuron")]
    assert not any("secret" in c for c in contents)
    assert secret.read_bytes() == b"- [2026-11-01] the secret -> leaked\n"


def test_undo_puts_back_only_layout_files(tmp_path: Path) -> None:
    ws, root = tree(tmp_path, {"HOT.md": HOT_MD, "corrections.md": TRIPLE})
    plan(ws)
    with session(ws) as s:
        (result,) = s.decide([proposal_of(ws, "promote")], "accept")
    did = result.decision_id
    (root / "run.sh").write_bytes(b"echo hi\n")
    agent_write(
        ws, "UPDATE brainview_learning_write SET path = 'run.sh', after = ? "
        "WHERE decision_id = ? AND seq = 0", b"echo hi\n", did,
    )  # fmt: skip
    after = snapshot(root)
    with session(ws) as s, pytest.raises(BadPathError, match="not a file of the .learnings"):
        s.undo(did)
    assert snapshot(root) == after and (root / "run.sh").read_bytes() == b"echo hi\n"


def test_a_hard_link_to_the_open_agent_brain_is_never_read(tmp_path: Path) -> None:
    ws, root = tree(tmp_path, {"HOT.md": HOT_MD})
    os.link(ws / ".spikuit" / "agent" / "circuit.db", root / "brain.md")
    with Project.open(discover(ws), write_agent=True) as project:
        result = import_tree(project, root, now=NOW)
    assert ("brain.md", "a brain database file") in result.skipped
    assert agent_sql(ws, "PRAGMA integrity_check") == [("ok",)]
