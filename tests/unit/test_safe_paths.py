"""Files brainview writes outside the brains, and the paths it is given.

* ``export --out`` writes only a new regular file: a character device, a FIFO, a
  directory or a symbolic link is refused (exit 14), an existing file is not overwritten
  without ``--force`` (exit 5); ``--force`` replaces a file or a link itself, never a
  device; ``--out -`` is stdout.  The console's export and the community cache follow
  the same rules.
* An agent-brain path that is a directory, a dangling or looping symbolic link, or a
  special file is one line and exit 14 — never "no agent brain yet" — and
  ``init-agent`` then writes nothing (its ``config.toml`` stays as it was).
* ``BRAINVIEW_BUSY_TIMEOUT`` that is not a finite number of seconds is a usage error.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from test_cli import agent_db, cli, run

from brainview.errors import BadPathError, ConflictError, ExitCode

Maker = Callable[[Path], None]


def fifo(path: Path) -> None:
    os.mkfifo(path)


def dangling(path: Path) -> None:
    path.symlink_to(path.parent / "nowhere-at-all")


def loop(path: Path) -> None:
    other = path.with_name(path.name + ".other")
    path.symlink_to(other)
    other.symlink_to(path)


def directory(path: Path) -> None:
    path.mkdir()


def to_stdout(path: Path) -> None:
    path.symlink_to("/dev/stdout")


def to_device(path: Path) -> None:
    path.symlink_to("/dev/null")


SPECIAL: dict[str, Maker] = {
    "fifo": fifo,
    "dangling-symlink": dangling,
    "symlink-loop": loop,
    "directory": directory,
    "symlink-to-stdout": to_stdout,
    "symlink-to-a-device": to_device,
}


def one_line(out, code: int) -> None:  # type: ignore[no-untyped-def]
    assert out.returncode == code, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr


def snapshot(where: Path) -> dict[str, tuple[int, str]]:
    """What is in a directory: each entry's kind and, for links, where it points."""
    out = {}
    for entry in sorted(where.iterdir()):
        st = entry.lstat()
        target = os.readlink(entry) if stat.S_ISLNK(st.st_mode) else ""
        out[entry.name] = (stat.S_IFMT(st.st_mode), target)
    return out


@pytest.mark.parametrize("kind", sorted(SPECIAL))
def test_export_refuses_special_targets(demo, tmp_path: Path, kind: str) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    where = tmp_path / "out"
    where.mkdir()
    target = where / "export.json"
    SPECIAL[kind](target)
    before = snapshot(where)
    out = cli("export", "proposals", "-C", str(root), "--out", str(target))
    one_line(out, ExitCode.BAD_PATH)
    assert out.stdout == "" and snapshot(where) == before
    if kind in ("fifo", "dangling-symlink", "symlink-loop", "directory"):
        forced = cli("export", "proposals", "-C", str(root), "--out", str(target), "--force")
        one_line(forced, ExitCode.BAD_PATH)
        assert snapshot(where) == before


def test_a_device_is_never_written_even_with_force(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    for flags in ((), ("--force",)):
        out = cli("export", "proposals", "-C", str(root), "--out", "/dev/null", *flags)
        one_line(out, ExitCode.BAD_PATH)
        assert "character device" in out.stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_existing_files_and_links_need_force(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    where = tmp_path / "w"
    where.mkdir()

    def export(target: Path, *flags: str):  # type: ignore[no-untyped-def]
        return cli("export", "decisions", "-C", str(root), "--out", str(target), *flags)

    existing = where / "old.json"
    existing.write_text("keep me\n")
    refused = export(existing)
    one_line(refused, ExitCode.CONFLICT)
    assert "already exists" in refused.stderr and existing.read_text() == "keep me\n"
    assert export(existing, "--force").returncode == 0
    assert json.loads(existing.read_text()) == []
    # a link to a regular file: refused, then --force replaces the link, not its target
    real = where / "real.txt"
    real.write_text("the link's target\n")
    link = where / "link.json"
    link.symlink_to(real)
    one_line(export(link), ExitCode.BAD_PATH)
    assert export(link, "--force").returncode == 0
    assert not link.is_symlink() and json.loads(link.read_text()) == []
    assert real.read_text() == "the link's target\n"
    assert sorted(p.name for p in where.iterdir()) == ["link.json", "old.json", "real.txt"]


def test_out_dash_is_stdout(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    here = tmp_path / "cwd"
    here.mkdir()
    out = run("export", "proposals", "-C", str(root), "--out", "-", cwd=here)
    assert out.returncode == 0, out.stderr
    assert len(json.loads(out.stdout)) == 36
    assert list(here.iterdir()) == []


def test_console_export_follows_the_same_rules(tmp_path: Path) -> None:
    from brainview.services.readout.view_export import export_rows

    rows = [{"id": "p1", "summary": "x"}]
    target = tmp_path / "view.csv"
    assert export_rows(rows, target) == 1
    with pytest.raises(ConflictError, match="already exists"):
        export_rows(rows, target)
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    with pytest.raises(BadPathError, match="FIFO"):
        export_rows(rows, pipe)
    link = tmp_path / "link.json"
    link.symlink_to("/dev/stdout")
    with pytest.raises(BadPathError):
        export_rows(rows, link)
    planted = tmp_path / ".view.json.part"  # the old fixed temporary name: not followed
    victim = tmp_path / "victim.txt"
    victim.write_text("untouched\n")
    planted.symlink_to(victim)
    assert export_rows(rows, tmp_path / "view.json") == 1
    assert victim.read_text() == "untouched\n"


def test_the_community_cache_never_opens_or_replaces_a_special_file(tmp_path: Path) -> None:
    import numpy as np

    from brainview.core.clustering import Partition
    from brainview.services.communities import cache as cc

    brain = tmp_path / "agent.db"
    target = cc.cache_file(brain)
    target.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(target)
    part = Partition(
        fingerprint="f", ids=["a", "b"], membership=np.array([0, 0]), policies={},
        modularity=0.0, n_edges=1,
    )  # fmt: skip
    cc.forget()
    assert cc.lookup(brain, "f") == (None, False)  # a FIFO is not read (would block)
    assert cc.save(brain, part) is False and stat.S_ISFIFO(os.lstat(target).st_mode)
    cc.forget()
    target.unlink()
    assert cc.save(brain, part) is True and stat.S_ISREG(os.lstat(target).st_mode)
    assert cc.lookup(brain, "f")[1] is True


def _user_brain_only(root: Path) -> tuple[Path, Path]:
    agent = agent_db(root)
    for side in agent.parent.glob("circuit.db*"):
        side.unlink()
    return agent, agent.parent / "config.toml"


@pytest.mark.parametrize("kind", ["directory", "dangling-symlink", "symlink-loop", "fifo"])
def test_a_bad_agent_brain_path_is_one_line_and_nothing_is_written(demo, kind: str) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    agent, config = _user_brain_only(root)
    config.write_text("# the maintainer's agent config\n")
    SPECIAL[kind](agent)
    before = snapshot(agent.parent)
    for argv in (("stats",), ("proposals", "list"), ("init-agent",), ("open",)):
        out = cli(*argv, "-C", str(root))
        one_line(out, ExitCode.BAD_PATH)
        assert "no agent brain yet" not in out.stderr and "already exists" not in out.stderr
        assert "agent brain" in out.stderr
    assert snapshot(agent.parent) == before
    assert config.read_text() == "# the maintainer's agent config\n"


def test_init_agent_keeps_an_existing_config_and_refuses_a_bad_one(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    agent, config = _user_brain_only(root)
    config.write_text("# mine\n")
    assert cli("init-agent", "-C", str(root)).returncode == 0
    assert agent.is_file() and config.read_text() == "# mine\n"
    assert cli("stats", "-C", str(root), "--json").returncode == 0
    again = cli("init-agent", "-C", str(root))
    one_line(again, ExitCode.CONFLICT)
    shutil.rmtree(agent.parent)
    agent.parent.mkdir()
    (agent.parent / "config.toml").symlink_to(agent.parent / "gone")
    bad = cli("init-agent", "-C", str(root))
    one_line(bad, ExitCode.BAD_PATH)
    assert sorted(p.name for p in agent.parent.iterdir()) == ["config.toml"]


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e308", "1e400", "-1", "abc", "0x10"])
def test_a_bad_busy_timeout_is_a_usage_error(demo, value: str) -> None:  # type: ignore[no-untyped-def]
    out = run("stats", "-C", str(demo[0]), env={"BRAINVIEW_BUSY_TIMEOUT": value})
    one_line(out, ExitCode.USAGE)
    assert "BRAINVIEW_BUSY_TIMEOUT" in out.stderr and out.stdout == ""


def test_a_deleted_brains_inode_reused_by_a_new_file_is_not_refused(tmp_path: Path) -> None:
    """A brain this process opened and that was deleted since: a new file that gets its
    inode back is plain input, not "a brain database file"; the brain itself still is."""
    from brainview.errors import InvalidInputError
    from brainview.store import connect as c

    brain = tmp_path / "circuit.db"
    sqlite3.connect(brain).execute("CREATE TABLE t(x)").connection.close()
    c.connect(brain, write=False, timeout=1).close()
    with pytest.raises(InvalidInputError, match="is a brain database file"):
        c.refuse_brain_path(brain, "--out")
    note = tmp_path / "note.md"
    note.write_text("x")
    gone = tmp_path / "gone.db"  # stands for the deleted brain whose inode `note` reuses
    ident = c.file_identity(note)
    assert ident is not None
    c._OPENED[ident] = gone
    try:
        c.refuse_brain_path(note, "learnings")  # not refused: that brain is gone
        c._OPENED[ident] = note  # while the opened brain is there, it is refused
        with pytest.raises(InvalidInputError):
            c.refuse_brain_path(note, "learnings")
    finally:
        c._OPENED.pop(ident, None)
