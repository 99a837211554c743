"""Hostile text at every CLI entry point that writes to a brain: refused with one line
naming the field, a distinct exit code, and no row written.

The measured cases of issue #15: an OSC sequence in ``rename_domain``'s ``new`` (61
``neuron.domain`` values rewritten, and ``spkt neuron list`` set the terminal title), NUL
and bidi controls in ``set_domain``; a decider name with ESC from the config file or
``--decider``; ESC in a lifecycle reason or actor.  Markup stays allowed: it is text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_cli import agent_db, cli, dump, fresh, sql, user_db

from brainview.errors import ExitCode

OSC_TITLE = "\x1b]0;PWNED\x07music2"


def both(root: Path) -> tuple[Any, Any]:
    return dump(user_db(root)), dump(agent_db(root))


def domain_with_neurons(root: Path) -> str:
    rows = sql(user_db(root), "SELECT domain FROM neuron WHERE retired_at IS NULL LIMIT 1")
    return str(rows[0][0])


def propose(root: Path, tmp: Path, doc: dict[str, Any]) -> Any:
    f = tmp / "p.json"
    f.write_text(json.dumps(doc))
    return cli("propose", str(f), "-C", str(root))


def refused(out: Any, code: ExitCode, message: str) -> None:
    assert out.returncode == int(code), out.stderr
    assert out.stdout == ""
    assert out.stderr.strip().splitlines() == [f"brainview: {message}"]


@pytest.mark.parametrize(
    ("params", "field", "what"),
    [
        ({"new": OSC_TITLE}, "new", "control character U+001B"),
        ({"new": "music\x00"}, "new", "control character U+0000"),
        ({"new": "\u202emusic"}, "new", "bidi control U+202E"),
        ({"new": "two\nlines"}, "new", "control character U+000A"),
        ({"old": "\x9b31m"}, "old", "control character U+009B"),
    ],
)
def test_rename_domain_refuses_controls_in_either_name(
    demo, tmp_path: Path, params, field, what
) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    old = domain_with_neurons(root)
    before = both(root)
    out = propose(
        root, tmp_path, {"kind": "rename_domain", "params": {"old": old, "new": "x", **params}}
    )
    refused(out, ExitCode.INVALID_INPUT, f"proposal[0].params.{field}: {what} not allowed")
    assert both(root) == before


def test_set_domain_and_merge_domains_refuse_controls_but_keep_markup(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    ids = [r[0] for r in sql(user_db(root), "SELECT id FROM neuron WHERE retired_at IS NULL")]
    old = domain_with_neurons(root)
    before = both(root)
    esc = "control character U+001B"
    cases = [
        ("set_domain", {"neurons": ids[:2], "domain": "a\u2066b"}, "domain", "bidi control U+2066"),
        ("merge_domains", {"sources": [old], "target": OSC_TITLE}, "target", esc),
        ("merge_domains", {"sources": [old, "x\x1b"], "target": "t"}, "sources[1]", esc),
    ]
    for kind, params, where, what in cases:
        out = propose(root, tmp_path, {"kind": kind, "params": params})
        refused(out, ExitCode.INVALID_INPUT, f"proposal[0].params.{where}: {what} not allowed")
    assert both(root) == before
    markup = "[bold]x[/bold] [@click=app.quit]"
    doc = {"id": "p-markup", "kind": "set_domain", "params": {"neurons": ids[:2], "domain": markup}}
    assert propose(root, tmp_path, doc).returncode == 0
    (stored,) = sql(
        agent_db(root), "SELECT params_json FROM brainview_proposal WHERE id='p-markup'"
    )
    assert json.loads(stored[0])["domain"] == "[bold]x[/bold] [@click=app.quit]"


def test_decider_with_esc_is_refused_from_the_flag_and_from_the_config(make_demo) -> None:  # type: ignore[no-untyped-def]
    root, info = make_demo()
    pid = fresh(info)[0]
    before = both(root)
    out = cli("proposals", "accept", pid, "--decider", "mal\x1b]0;x\x07lory", "-C", str(root))
    refused(out, ExitCode.INVALID_INPUT, "decider: control character U+001B not allowed")
    out = cli("proposals", "reject", pid, "--reason", "no\x1b[2J", "-C", str(root))
    refused(out, ExitCode.INVALID_INPUT, "reason: control character U+001B not allowed")
    assert both(root) == before
    config = root / ".spikuit" / "brainview.toml"
    config.write_text('[review]\ndecider = "mal\\u001b]0;x\\u0007lory"\n')
    out = cli("proposals", "accept", pid, "-C", str(root))
    refused(out, ExitCode.CONFIG, f"{config}: review.decider: control character U+001B not allowed")
    config.write_text('[review]\ndecider = "mallory\\u202e"\n')
    out = cli("proposals", "dismiss", pid, "-C", str(root))
    assert out.returncode == int(ExitCode.CONFIG) and "bidi control U+202E" in out.stderr
    assert both(root) == before
    config.write_text('[review]\ndecider = "[bold]mallory[/bold]"\n')  # markup is a name
    assert cli("proposals", "accept", pid, "-C", str(root), "--json").returncode == 0
    out = cli("proposals", "undo", "--last", "--decider", "bob\u2066", "-C", str(root))
    refused(out, ExitCode.INVALID_INPUT, "actor: bidi control U+2066 not allowed")
    (decider,) = sql(agent_db(root), "SELECT decider FROM brainview_decision")
    assert decider == ("[bold]mallory[/bold]",)


def test_lifecycle_and_writing_pause_refuse_hostile_reasons_and_actors(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    rid = info.reflection_ids[0]
    before = both(root)
    cases = [
        (["challenge", rid, "--reason", "odd\x1b]52;c;x\x07"], "reason", "control", "001B"),
        (["invalidate", rid, "--reason", "x\u202ey"], "reason", "bidi", "202E"),
        (["challenge", rid, "--reason", "ok", "--actor", "a\nb"], "actor", "control", "000A"),
        (["disable", "--reason", "a\x00b"], "reason", "control", "0000"),
        (["disable", "--actor", "\x9dtitle"], "actor", "control", "009D"),
    ]
    for args, field, what, cp in cases:
        argv = ["reflect", *args]
        message = f"{field}: {what} {'character ' if what == 'control' else 'control '}U+{cp}"
        message += " not allowed"
        refused(cli(*argv, "-C", str(root)), ExitCode.INVALID_INPUT, message)
    assert both(root) == before
    out = cli("reflect", "challenge", rid, "--reason", "two\nlines [b]ok[/b]", "-C", str(root))
    assert out.returncode == 0, out.stderr
