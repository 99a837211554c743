"""``--help`` is fast and cannot drift: the pre-rendered text equals argparse's, the fast
path imports nothing beyond the interpreter's own start-up, narrow terminals fall back
to argparse, and usage errors are one line (exit 2)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from test_cli import cli, run

from brainview.commands import helptext
from brainview.commands.tree import KINDS, build_parser, leaves
from brainview.core.kinds import KINDS as CORE_KINDS
from brainview.docgen import help_texts, render_helptext
from brainview.errors import ExitCode

ROOT = Path(__file__).resolve().parents[2]
PATHS = sorted(leaves(build_parser()))


def test_helptext_module_is_current() -> None:
    shipped = (ROOT / "brainview" / "commands" / "helptext.py").read_text()
    assert shipped == render_helptext(), (
        "regenerate: python -m brainview.docgen --helptext > brainview/commands/helptext.py"
    )


@pytest.mark.parametrize("path", PATHS)
def test_fast_help_is_what_argparse_prints(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    fast = cli(*path.split(), "--help")
    assert fast.returncode == 0 and fast.stderr == ""
    assert fast.stdout == help_texts(80)[path] + "\n"
    assert fast.stdout == helptext.HELP[path] + "\n"
    for flag in ("-h", "--help"):
        assert fast.stdout == _argparse_help([*path.split(), flag])


def _argparse_help(argv: list[str]) -> str:
    """What argparse itself prints for ``argv`` (in-process, COLUMNS from the env)."""
    printed = io.StringIO()
    with redirect_stdout(printed), pytest.raises(SystemExit) as done:
        build_parser().parse_args(argv)
    assert done.value.code == 0
    return printed.getvalue()


def test_narrow_terminals_get_argparse_rendering(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    out = cli("proposals", "list", "--help")
    assert out.returncode == 0
    assert out.stdout == help_texts(60)["proposals list"] + "\n"
    assert out.stdout != helptext.HELP["proposals list"] + "\n"


def _modules_after(code: str) -> set[str]:
    """Modules loaded once ``code`` ran (printed on stderr; stdout is the help text)."""
    out = subprocess.run(
        [sys.executable, "-c", code + "\nprint(' '.join(sorted(sys.modules)), file=sys.stderr)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"COLUMNS": "100", "PATH": ""},
    )
    return set(out.stderr.split())


@pytest.mark.parametrize("argv", [["--help"], ["proposals", "list", "--help"], ["--version"]])
def test_fast_path_imports_only_brainview_itself(argv: list[str]) -> None:
    baseline = _modules_after("import sys")
    after = _modules_after(
        f"import sys\nsys.argv = ['brainview', *{argv!r}]\nfrom brainview.cli import main\nmain()"
    )
    assert after - baseline == {
        "brainview",
        "brainview.cli",
        *(["brainview.commands", "brainview.commands.helptext"] if "--help" in argv else []),
    }


def test_version_and_unknown_commands() -> None:
    from brainview import __version__

    assert cli("--version").stdout == f"brainview {__version__}\n"
    for argv in (["proposals", "frobnicate"], ["proposals"], ["reflect", "list", "--bogus"]):
        out = cli(*argv)
        assert out.returncode == int(ExitCode.USAGE)
        assert len(out.stderr.strip().splitlines()) == 1 and "--help" in out.stderr
    as_json = run("proposals", "list", "--bogus", "--json")
    assert as_json.returncode == 2 and json.loads(as_json.stderr)["error"] == "usage"


def test_parser_kinds_match_the_core() -> None:
    assert tuple(CORE_KINDS) == KINDS
