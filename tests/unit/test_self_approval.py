"""No self-approval (issue 34, item 2): a decider whose name is a proposal's runtime is
refused at the Session door — on the CLI, for a signed-in person, for proposals that
came over MCP — with one line, the whole batch, and nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import agent_db, cli, dump, sql, user_db
from test_mcp import data, note, session_run

from brainview.core.authorship import same_identity, self_approval
from brainview.core.identity import Identity
from brainview.demo.generator import DEMO_NOW, DemoInfo
from brainview.errors import ExitCode, SelfApprovalError
from brainview.services.session import Session
from brainview.store.discovery import discover


def _runtime(root: Path, pid: str) -> str:
    return str(
        sql(agent_db(root), "SELECT runtime FROM brainview_proposal WHERE id = ?", pid)[0][0]
    )


def _fresh(info: DemoInfo) -> list[str]:
    return [p for p in info.proposal_ids if p not in info.stale_proposal_ids]


def _brains(root: Path) -> dict[Path, object]:
    """Every row of both brains, brainview's audit tables included."""
    return {db: dump(db, skip=set()) for db in (agent_db(root), user_db(root))}


def test_the_rule_is_pure_and_names_the_first() -> None:
    assert same_identity("Alice ", "alice") and not same_identity("alice", None)
    authors = [("p-1", "bob"), ("p-2", "ALICE"), ("p-3", "alice")]
    assert self_approval("alice", authors, "accept", 3) == (
        "refused: alice proposed p-2 and cannot accept it; none of the 3 proposals was decided"
    )
    assert self_approval("alice", [("p-1", "alice")], "dismiss") == (
        "refused: alice proposed p-1 and cannot dismiss it"
    )
    assert self_approval("carol", authors, "reject", 3) is None
    assert self_approval("alice", [("p-9", None)], "accept") is None  # no known author


@pytest.mark.parametrize("verb", ["accept", "reject", "dismiss"])
def test_cli_refuses_the_author_and_writes_nothing(demo, verb: str) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    pid = _fresh(info)[0]
    author = _runtime(root, pid)
    before = _brains(root)
    out = cli("proposals", verb, pid, "--decider", author, "-C", str(root))
    assert out.returncode == ExitCode.REFUSED
    assert out.stderr == f"brainview: refused: {author} proposed {pid} and cannot {verb} it\n"
    assert _brains(root) == before
    as_json = cli("proposals", verb, pid, "--decider", author.upper(), "-C", str(root), "--json")
    assert json.loads(as_json.stderr)["error"] == "self_approval"
    assert _brains(root) == before
    other = cli("proposals", verb, pid, "--decider", "someone-else", "-C", str(root))
    assert other.returncode == 0, other.stderr


def test_a_bulk_is_refused_whole_naming_the_first(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    ids = _fresh(info)[:6]
    runtimes = [_runtime(root, p) for p in ids]
    author = runtimes[-1]
    first = ids[runtimes.index(author)]
    before = _brains(root)
    out = cli("proposals", "reject", *ids, "--decider", author, "-C", str(root))
    assert out.returncode == ExitCode.REFUSED
    assert f"refused: {author} proposed {first} and cannot reject it; none of the 6" in out.stderr
    assert _brains(root) == before


def test_signed_in_person_and_the_opt_out(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    pid = _fresh(info)[0]
    author = _runtime(root, pid)
    paths = discover(root)
    before = _brains(root)
    alice = Identity(author, "reviewer")
    with Session.start(paths, clock=lambda: DEMO_NOW, identity=alice) as session:
        with pytest.raises(SelfApprovalError, match=f"{author} proposed {pid}"):
            session.decide([pid], "accept")
        with pytest.raises(SelfApprovalError):
            session.dismiss(pid)
    assert _brains(root) == before
    (root / ".spikuit" / "brainview.toml").write_text("[review]\nallow_self_approval = true\n")
    with Session.start(paths, clock=lambda: DEMO_NOW, decider=author) as session:
        assert session.decide([pid], "reject")[0].proposal_id == pid


def test_a_proposal_that_came_over_mcp_is_refused_to_its_client(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    user = sql(user_db(root), "SELECT id FROM neuron WHERE retired_at IS NULL LIMIT 1")[0][0]

    async def body(s):  # type: ignore[no-untyped-def]
        return data(await s.call_tool("propose", {"proposals": note("prop-mcp-self", user, [])}))

    assert session_run(root, body)["count"] == 1
    assert _runtime(root, "prop-mcp-self") == "curator-test"  # the MCP client's name
    before = _brains(root)
    out = cli("proposals", "accept", "prop-mcp-self", "--decider", "curator-test", "-C", str(root))
    assert out.returncode == ExitCode.REFUSED
    assert "refused: curator-test proposed prop-mcp-self and cannot accept it" in out.stderr
    assert _brains(root) == before
