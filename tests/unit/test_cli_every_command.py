"""Every subcommand, as a real process, on a demo brain: exit code 0 and the documented
JSON shape (the detailed behaviour of each is tested in the other ``test_cli_*``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_cli import agent_db, cli, fresh, run, sql, user_db

from brainview.demo.generator import DEMO_NOW
from brainview.demo.learnings_gen import write_tree


def _proposal_file(root: Path) -> Path:
    users = [r[0] for r in sql(user_db(root), "SELECT id FROM neuron WHERE retired_at IS NULL")]
    refl = [r[0] for r in sql(agent_db(root), "SELECT id FROM neuron WHERE type='reflection'")]
    doc = {
        "id": "p-smoke",
        "kind": "merge_neurons",
        "params": {"keep": users[0], "merge": [users[1]]},
        "consulted": [{"reflection": refl[0], "stance": "support"}],
    }
    path = root / "p.json"
    path.write_text(json.dumps(doc))
    return path


def _held_back_file(root: Path) -> Path:
    users = [r[0] for r in sql(user_db(root), "SELECT id FROM neuron WHERE retired_at IS NULL")]
    refl = [r[0] for r in sql(agent_db(root), "SELECT id FROM neuron WHERE type='reflection'")]
    doc = {
        "id": "hb-smoke",
        "action": "withdrawn",
        "draft": {"kind": "note", "params": {"neurons": [users[0]]}, "rationale": "a quiz"},
        "lessons": [{"reflection": refl[0], "stance": "oppose"}],
    }
    path = root / "hb.json"
    path.write_text(json.dumps(doc))
    return path


def _case(name: str, root: Path, info: Any) -> tuple[list[str], Any]:
    """The argv of one subcommand and a check of its JSON output."""
    pid, rid = fresh(info)[0], info.reflection_ids[0]
    if name in ("proposals undo", "reflect undo", "reflect reinstate", "reflect release"):
        setup = ("proposals", "accept", pid) if name == "proposals undo" else None
        verb = "quarantine" if name == "reflect release" else "challenge"
        setup = setup or ("reflect", verb, rid, "--reason", "suspect")
        assert cli(*setup, "-C", str(root)).returncode == 0
    report = ["outcome", "report", "--id", "o-smoke", "--skill", "tutor", "--result", "failure",
              "--situation", "the hint missed", "--consulted", f"{rid}:support"]  # fmt: skip
    if name in ("outcome show", "outcome undo"):
        assert cli(*report, "-C", str(root)).returncode == 0
    held_back = ["held-back", "report", str(_held_back_file(root))]
    if name in ("held-back list", "held-back decide", "held-back undo"):
        assert cli(*held_back, "-C", str(root)).returncode == 0
    if name == "held-back undo":
        decide = ("held-back", "decide", "hb-smoke", "rightly-held-back")
        assert cli(*decide, "-C", str(root)).returncode == 0
    vote = ""
    if name in ("proposals approvals", "proposals withdraw"):
        (root / ".spikuit" / "brainview.toml").write_text(
            '[two_person]\nenabled = true\nrules = ["invalidate"]\n'
        )
        first = ("reflect", "invalidate", rid, "--reason", "planted", "--actor", "ada")
        assert cli(*first, "-C", str(root)).returncode == 0
        listed = cli("proposals", "approvals", "-C", str(root), "--json")
        vote = json.loads(listed.stdout)["approvals"][0]["vote_id"]
    tree = root / ".learnings"
    if name.startswith("learnings"):
        write_tree(root, DEMO_NOW)
    if name == "learnings plan":
        assert cli("learnings", "import", str(tree), "-C", str(root)).returncode == 0
    if name in ("users list", "users token"):
        from brainview.services.team.accounts import Accounts, default_path

        accounts = Accounts(default_path(root / ".spikuit"))
        if "ada" not in accounts.load().accounts:
            accounts.add("ada", "reviewer", "a long enough password", now=DEMO_NOW.isoformat())
    cases: dict[str, tuple[list[str], Any]] = {
        "propose": (["propose", str(_proposal_file(root))], lambda d: d["count"] == 1),
        "propose --dry-run": (
            ["propose", str(_proposal_file(root)), "--dry-run"],
            lambda d: d["dry_run"] is True,
        ),
        "proposals list": (["proposals", "list"], lambda d: d["total"] == 36),
        "proposals health": (
            ["proposals", "health"],
            lambda d: d["queue_health"]["pending"] == 36 and d["queue_health"]["growth_alert"],
        ),
        "proposals show": (["proposals", "show", pid], lambda d: d["id"] == pid),
        "proposals accept": (
            ["proposals", "accept", pid],
            lambda d: d["decisions"][0]["apply_state"] == "applied",
        ),
        "proposals reject": (
            ["proposals", "reject", pid, "--reason", "no"],
            lambda d: d["decisions"][0]["new_reflection_id"],
        ),
        "proposals dismiss": (
            ["proposals", "dismiss", info.stale_proposal_ids[0]],
            lambda d: d["decisions"][0]["grades"] == [],
        ),
        "proposals undo": (["proposals", "undo", "--last"], lambda d: d["proposal_id"] == pid),
        "reflect list": (["reflect", "list"], lambda d: d["count"] == 50),
        "reflect inspect": (["reflect", "inspect", rid], lambda d: d["id"] == rid),
        "reflect challenge": (
            ["reflect", "challenge", rid, "--reason", "odd"],
            lambda d: d["changed"][0]["to"] == "challenged",
        ),
        "reflect invalidate": (
            ["reflect", "invalidate", rid, "--reason", "planted"],
            lambda d: d["changed"][0]["to"] == "invalidated",
        ),
        "reflect reinstate": (
            ["reflect", "reinstate", rid],
            lambda d: d["changed"][0]["to"] == "live",
        ),
        "reflect undo": (["reflect", "undo", "--last"], lambda d: d["reflections"] == [rid]),
        "reflect quarantine": (
            ["reflect", "quarantine", rid, "--reason", "suspect"],
            lambda d: d["changed"][0]["to"] == "quarantined",
        ),
        "reflect release": (
            ["reflect", "release", rid],
            lambda d: d["changed"][0]["to"] == "live",
        ),
        "reflect replay": (
            ["reflect", "replay", rid],
            lambda d: d["reflection"] == rid and d["recalls_replayed"] <= d["recalls_total"],
        ),
        "reflect fading": (["reflect", "fading"], lambda d: d["total"] >= d["count"]),
        "reflect consolidate": (
            ["reflect", "consolidate"],
            lambda d: len(d["queued"]) == len(d["items"]) > 0,
        ),
        "reflect consolidate --dry-run": (
            ["reflect", "consolidate", "--dry-run"],
            lambda d: d["dry_run"] is True and d["queued"] == [] and all(d["counts"].values()),
        ),
        "reflect disable": (
            ["reflect", "disable", "--reason", "audit"],
            lambda d: d["enabled"] is False and d["reason"] == "audit",
        ),
        "reflect enable": (["reflect", "enable"], lambda d: d["enabled"] is True),
        "communities list": (["communities", "list"], lambda d: d["total"] > 1),
        "communities show": (["communities", "show", "1"], lambda d: d["total"] > 1),
        "outcome report": (report, lambda d: d["lesson_id"] and d["grades"][0]["grade"] == 1),
        "outcome show": (["outcome", "show", "o-smoke"], lambda d: d["already_recorded"]),
        "outcome undo": (["outcome", "undo", "o-smoke"], lambda d: d["id"] == "o-smoke"),
        "held-back report": (held_back, lambda d: d["id"] == "hb-smoke"),
        "held-back list": (
            ["held-back", "list"],
            lambda d: d["count"] == 1 and d["items"][0]["in_lane"],
        ),
        "held-back decide": (
            ["held-back", "decide", "hb-smoke", "should-have-proposed"],
            lambda d: d["proposal_id"] == "p-hb-smoke" and d["grades"][0]["grade"] == 1,
        ),
        "held-back undo": (
            ["held-back", "undo", "hb-smoke"],
            lambda d: d["verdict"] == "rightly_held_back" and d["rows_restored"] > 0,
        ),
        "export proposals": (["export", "proposals"], lambda d: len(d) == 36),
        "export decisions": (["export", "decisions"], lambda d: d == []),
        "export reflections": (["export", "reflections"], lambda d: len(d) > 150),
        "export communities": (["export", "communities"], lambda d: len(d) > 1),
        "recall": (
            ["recall", "--text", "merging keywords overlap"],
            lambda d: d["recall_id"].startswith("rc-") and d["hits"][0]["rank"] == 1,
        ),
        "learnings import": (
            ["learnings", "import", str(tree)],
            lambda d: len(d["added"]) > 10 and d["root"] == str(tree),
        ),
        "learnings plan": (["learnings", "plan"], lambda d: len(d["queued"]) >= 4),
        "users list": (
            ["users", "list"],
            lambda d: d["count"] == 1 and d["users"][0]["name"] == "ada",
        ),
        "users token": (
            ["users", "token", "ada"],
            lambda d: d["name"] == "ada" and len(d["token"]) >= 43 and len(d["token_id"]) == 8,
        ),
        "recall --no-log": (
            ["recall", "--text", "merging keywords overlap", "--no-log"],
            lambda d: d["recall_id"] is None and len(d["hits"]) == 10,
        ),
        "recover": (["recover"], lambda d: d == {"count": 0, "intents": []}),
        "proposals approvals": (
            ["proposals", "approvals"],
            lambda d: d["enabled"] and [a["voted_by"] for a in d["approvals"]] == ["ada"],
        ),
        "proposals withdraw": (
            ["proposals", "withdraw", vote, "--decider", "bob"],
            lambda d: d["voted_by"] == "ada" and d["withdrawn_by"] == "bob",
        ),
    }
    return cases[name]


SUBCOMMANDS = [
    "propose", "propose --dry-run", "proposals list", "proposals health", "proposals show",
    "proposals accept",
    "proposals reject", "proposals dismiss", "proposals undo", "reflect list",
    "reflect inspect", "reflect challenge", "reflect invalidate", "reflect reinstate",
    "reflect quarantine", "reflect release", "reflect replay",
    "reflect undo", "reflect fading", "reflect consolidate", "reflect consolidate --dry-run",
    "reflect disable", "reflect enable", "outcome report", "outcome show", "outcome undo",
    "communities list", "communities show",
    "export proposals", "export decisions", "export reflections", "export communities",
    "recall", "recall --no-log", "learnings import", "learnings plan", "users list",
    "users token", "recover", "held-back report", "held-back list", "held-back decide",
    "held-back undo", "proposals approvals", "proposals withdraw",
]  # fmt: skip


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_every_subcommand_runs_as_a_process(make_demo, name: str) -> None:  # type: ignore[no-untyped-def]
    root, info = make_demo()
    argv, check = _case(name, root, info)
    json_flag = [] if argv[0] == "export" else ["--json"]
    out = run(*argv, "-C", str(root), *json_flag)
    assert out.returncode == 0, out.stderr
    assert check(json.loads(out.stdout)), out.stdout[:500]
    human = [] if argv[0] == "export" or "undo" in name else cli(*argv, "-C", str(root))
    if human:
        assert "Traceback" not in human.stderr
