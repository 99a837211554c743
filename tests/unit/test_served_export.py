"""A served console's export (``brainview serve``, a signed-in reviewer): only a plain
file name, written under the project's ``exports/``, through no symbolic link, never
over an existing file; and refusals that say nothing about the server's other paths."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from brainview.errors import BadPathError, ConflictError, InvalidInputError
from brainview.services.team.exports import export_name, write_served_export

ROWS = [{"id": "p1", "summary": "one"}, {"id": "p2", "summary": "two"}]


@pytest.mark.parametrize(
    "typed",
    [
        "/tmp/evil.csv",
        "../evil.csv",
        "sub/evil.csv",
        "..\\evil.csv",
        ".hidden.csv",
        "queue.txt",
        "queue",
        "",
        "bell\x07.csv",
        "x" * 200 + ".csv",
    ],
)
def test_only_a_plain_file_name_is_taken(typed: str, tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError) as err:
        write_served_export(ROWS, tmp_path, typed)
    assert err.value.message.startswith("export: give a file name ending .csv or .json")
    assert str(tmp_path) not in err.value.message and "\n" not in err.value.message
    assert not (tmp_path / "exports").exists() or not any((tmp_path / "exports").iterdir())


def test_a_name_is_written_under_exports(tmp_path: Path) -> None:
    assert export_name(" queue.CSV ") == "queue.CSV"
    assert write_served_export(ROWS, tmp_path, "queue.csv") == "exports/queue.csv"
    with (tmp_path / "exports" / "queue.csv").open() as fh:
        assert [r["id"] for r in csv.DictReader(fh)] == ["p1", "p2"]
    write_served_export(ROWS, tmp_path, "queue.json")
    assert json.loads((tmp_path / "exports" / "queue.json").read_text()) == ROWS
    assert sorted(p.name for p in (tmp_path / "exports").iterdir()) == ["queue.csv", "queue.json"]


def test_an_existing_export_is_never_replaced(tmp_path: Path) -> None:
    write_served_export(ROWS, tmp_path, "queue.csv")
    before = (tmp_path / "exports" / "queue.csv").read_bytes()
    with pytest.raises(ConflictError, match=r"^export: exports/queue.csv already exists"):
        write_served_export(ROWS[:1], tmp_path, "queue.csv")
    assert (tmp_path / "exports" / "queue.csv").read_bytes() == before
    assert [p.name for p in (tmp_path / "exports").iterdir()] == ["queue.csv"]  # no temp


def test_no_symbolic_link_is_followed(tmp_path: Path) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / "exports").symlink_to(elsewhere)
    with pytest.raises(BadPathError) as err:
        write_served_export(ROWS, project, "queue.csv")
    assert str(elsewhere) not in err.value.message and str(project) not in err.value.message
    assert list(elsewhere.iterdir()) == []
    (project / "exports").unlink()
    (project / "exports").mkdir()
    (project / "exports" / "queue.csv").symlink_to(elsewhere / "planted.csv")
    with pytest.raises(ConflictError):  # a link at the name is a taken name, not followed
        write_served_export(ROWS, project, "queue.csv")
    assert list(elsewhere.iterdir()) == []


def test_a_signed_in_session_exports_only_into_exports_in_the_core(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The rule holds in the session, not only in the console: a signed-in person's
    ``export_rows`` to a server path is refused; ``export_served`` writes exports/NAME."""
    from brainview.config import Config
    from brainview.core.identity import Identity
    from brainview.errors import RefusedError
    from brainview.services.session import Session
    from brainview.store.discovery import discover

    root, _info = demo
    outside = tmp_path / "elsewhere.csv"
    rows = [{"id": "p-1", "kind": "note"}]
    person = Session.start(discover(root), config=Config(), identity=Identity("rita", "reviewer"))
    with person, pytest.raises(RefusedError, match="exports/"):
        person.export_rows(rows, outside)
    assert not outside.exists()
    with person:
        shown = person.export_served(rows, "queue.csv")
    assert shown == "exports/queue.csv" and (root / "exports" / "queue.csv").is_file()
