"""The community partition cache lives outside the brains: memory and the user's cache dir."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from brainview.demo.generator import DEMO_NOW
from brainview.services import communities as svc
from brainview.services.communities import cache as community_cache
from brainview.services.communities.curves import reflection_detail
from brainview.services.project import Project
from brainview.store.discovery import discover


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    community_cache.forget()
    return home


def test_cached_under_xdg_cache_home_atomically(demo, cache_home: Path) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    with Project.open(discover(root)) as p:
        part = svc.ensure_partition(p, now=DEMO_NOW)
        agent_db = p.agent.path
    target = community_cache.cache_file(agent_db)
    assert target.parent == cache_home / "brainview" / "communities"
    assert sorted(os.listdir(target.parent)) == [target.name]  # no temporary file left
    data = json.loads(target.read_text(encoding="utf-8"))
    assert data["brain"] == str(agent_db.resolve())
    assert data["partition"]["fingerprint"] == part.fingerprint
    assert not any(f.startswith(".part-") for f in os.listdir(agent_db.parent))


def test_relative_or_unset_xdg_falls_back_to_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")
    assert community_cache.cache_dir() == Path.home() / ".cache" / "brainview" / "communities"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert community_cache.cache_dir() == Path.home() / ".cache" / "brainview" / "communities"


def test_a_fresh_process_reads_the_file_and_the_reflection_view_uses_it(demo, cache_home) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    with Project.open(discover(root)) as p:
        part = svc.ensure_partition(p, now=DEMO_NOW)
        community_cache.forget()
        rid = info.reflection_ids[0]
        detail = reflection_detail(p, rid, DEMO_NOW, threshold=0.7)
    number = int(part.membership[part.ids.index(rid)])
    assert detail.community is not None and detail.community.number == number + 1


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: "not json",
        lambda d: json.dumps({**d, "format": 99}),
        lambda d: json.dumps({**d, "brain": "/elsewhere/circuit.db"}),
        lambda d: json.dumps(
            {
                **d,
                "partition": {
                    **d["partition"],
                    "membership": [10**12] * len(d["partition"]["ids"]),
                },
            }
        ),
        lambda d: json.dumps({**d, "partition": {**d["partition"], "ids": ["b", "a"]}}),
        lambda d: json.dumps({**d, "partition": None}),
    ],
    ids=["garbage", "format", "other-brain", "huge-community", "unsorted", "null"],
)
def test_a_malformed_cache_file_is_ignored(demo, cache_home, damage) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    with Project.open(discover(root)) as p:
        svc.ensure_partition(p, now=DEMO_NOW)
        target = community_cache.cache_file(p.agent.path)
        target.write_text(damage(json.loads(target.read_text(encoding="utf-8"))), "utf-8")
        community_cache.forget()
        assert svc.load_partition(p) == (None, False)
        assert svc.ensure_partition(p, now=DEMO_NOW).ids  # clusters again


def test_unwritable_cache_dir_keeps_the_memory_copy(demo, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    blocker = root / "not-a-dir"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # mkdir under a file fails
    community_cache.forget()
    with Project.open(discover(root)) as p:
        part = svc.ensure_partition(p, now=DEMO_NOW)
        assert svc.store_partition(p, part) is False
        cached, fresh = svc.load_partition(p)
    assert fresh and cached is part


def test_never_written_into_the_brain_directory(demo, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    agent_dir = root / ".spikuit" / "agent"
    monkeypatch.setenv("XDG_CACHE_HOME", str(agent_dir))
    community_cache.forget()
    with Project.open(discover(root)) as p:
        part = svc.ensure_partition(p, now=DEMO_NOW)
        assert svc.store_partition(p, part) is False
    assert not (agent_dir / "brainview").exists()
