"""The whole command tree as an argparse parser.

Every leaf sets ``run="module:function"`` (a module of :mod:`brainview.commands`), so
the handler and its imports load only when that command runs.  ``docs/cli-reference.md``
and the pre-rendered help in :mod:`brainview.commands.helptext` are generated from
this parser (``python -m brainview.docgen``); tests keep both current.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import NoReturn

from brainview import __version__
from brainview.errors import UsageError

DESCRIPTION = (
    "Keep an AI agent's self-learnt lessons honest: triage curator proposals, browse "
    "reflection communities, invalidate adversarial reflections."
)
EPILOG = "Exit codes and JSON shapes: docs/cli.md. Without COMMAND, `brainview [PATH]` opens."
KINDS = (
    "merge_neurons",
    "retire_neuron",
    "add_synapse",
    "remove_synapse",
    "set_synapse_weight",
    "set_domain",
    "rename_domain",
    "merge_domains",
    "edit_content",
    "note",
    "prune_reflection",
    "decay_synapses",
    "summarize_community",
    "retire_policy",
    "learning_tier",
)
"""Mirrors :data:`brainview.core.kinds.KINDS` (a test checks they agree)."""
STATUSES = ("pending", "accepted", "rejected", "dismissed", "decided", "all")
DATASETS = ("proposals", "decisions", "reflections", "communities")


class Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (exit 2 via :class:`UsageError`)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(_usage_line(self.prog, message))

    def parse_args(  # type: ignore[override]  # one signature, not argparse's overloads
        self, args: Sequence[str] | None = None, namespace: None = None
    ) -> argparse.Namespace:
        """Unknown arguments are named with the command they were given to (not the top
        level's ``brainview``), so the line says which ``--help`` to read."""
        ns, extras = self.parse_known_args(args, namespace)
        if extras:
            prog = getattr(ns, "leaf_prog", self.prog)
            raise UsageError(_usage_line(prog, f"unrecognized arguments: {' '.join(extras)}"))
        return ns


def _usage_line(prog: str, message: str) -> str:
    """``held-back list: unrecognized arguments: x (see brainview held-back list --help)``:
    the CLI prefixes ``brainview:`` itself, so the command is named without it."""
    command = prog.removeprefix("brainview").strip()
    head = f"{command}: " if command else ""
    return f"{head}{message} (see {prog} --help)"


def _location(p: argparse.ArgumentParser, *, positional: bool = False) -> None:
    if positional:
        p.add_argument(
            "path", nargs="?", help="project dir, .spikuit dir or circuit.db (default: walk up)"
        )
    p.add_argument(
        "-C", "--project", metavar="PATH", help="project dir, .spikuit dir or circuit.db"
    )
    p.add_argument("--user", help="user brain: path or sqlite:/// URL")
    p.add_argument("--agent", help="agent brain: path or sqlite:/// URL")


def _json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="machine-readable output (docs/cli.md)")


def _leaf(  # noqa: ANN202
    sub: argparse._SubParsersAction, name: str, run: str, help_: str, epilog: str | None = None
):
    description = help_[:1].upper() + help_[1:] + "."
    p = sub.add_parser(name, help=help_, description=description, epilog=epilog)
    p.set_defaults(run=run, leaf_prog=p.prog)
    return p


def _basic(sub: argparse._SubParsersAction) -> None:
    p = _leaf(sub, "open", "basic:open_app", "open the console (the default command)")
    _location(p, positional=True)
    p.add_argument(
        "--screen", choices=["overview", "triage", "communities"], help="screen to start on"
    )

    p = _leaf(sub, "demo", "basic:demo", "write realistic demo brains and open them")
    p.add_argument("dir", nargs="?", help="where to write the demo project (default: a temp dir)")
    p.add_argument("--no-open", action="store_true", help="only write the project")
    p.add_argument("--force", action="store_true", help="replace an existing demo in DIR")
    p.add_argument("--seed", type=int, default=42, help="generator seed (default 42)")
    p.add_argument(
        "--learnings",
        action="store_true",
        help="a .learnings/ tree (docs/learnings.md), imported, its tier moves queued",
    )

    p = _leaf(sub, "stats", "basic:stats", "vital signs of both brains")
    _location(p, positional=True)
    _json(p)

    p = _leaf(sub, "init-agent", "basic:init_agent", "create an empty agent brain if none")
    _location(p, positional=True)

    p = _leaf(
        sub,
        "recover",
        "basic:recover",
        "finish (or roll back) accepts and undos a crash or a failure left half-done",
        epilog="An accept records its decision, then changes the user brain; if the second "
        "step was interrupted (a crash, a locked brain) it is finished here and on the next "
        "decision. --roll-back undoes those decisions exactly instead (grades, spikes, "
        "proposal back to pending). docs/cli.md.",
    )
    _location(p, positional=True)
    p.add_argument("--roll-back", action="store_true", help="undo the half-done decisions instead")
    _json(p)

    p = _leaf(
        sub,
        "serve",
        "serve:serve",
        "serve the console as a web page (textual-serve)",
        epilog="Each browser tab runs its own `brainview open` on the same brains. Only "
        "this machine can connect unless --public: the console writes to the brains. With "
        "people in the users file (`brainview users add`) everyone signs in and each console "
        "runs as its person; --public needs that. docs/team.md.",
    )
    _location(p, positional=True)
    p.add_argument(
        "--screen", choices=["overview", "triage", "communities"], help="screen to start on"
    )
    p.add_argument("--demo", action="store_true", help="serve demo brains (PATH: where to write)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="TCP port, 0 = any free one (8000)")
    p.add_argument(
        "--public", action="store_true", help="allow a --host other machines can reach (sign-in)"
    )
    p.add_argument(
        "--users",
        metavar="FILE",
        help="sign in against FILE (.spikuit/brainview-users.json)",
    )
    p.add_argument(
        "--tls-proxy",
        action="store_true",
        help="a TLS reverse proxy is in front: Secure cookies, X-Forwarded-Proto/-For",
    )
    p.add_argument(
        "--max-sessions",
        type=int,
        default=8,
        metavar="N",
        help="consoles (browser tabs) at once; more get a 'busy' page (8)",
    )
    p.add_argument(
        "--idle-timeout",
        type=float,
        default=1800.0,
        metavar="SECONDS",
        help="end a console untouched this long; 0 = never (1800)",
    )


def _propose(sub: argparse._SubParsersAction) -> None:
    p = _leaf(
        sub,
        "propose",
        "propose:propose",
        "queue curator proposals from JSON (docs/proposal-format.md)",
        epilog="FILE holds one JSON object, an array of them, or JSON Lines. The batch is "
        "all-or-nothing: any invalid proposal refuses the whole batch (exit 4).",
    )
    p.add_argument(
        "file", nargs="?", metavar="FILE", help="a JSON / JSON Lines file, or - for stdin"
    )
    _location(p)
    p.add_argument("--dry-run", action="store_true", help="validate only; write nothing")
    p.add_argument(
        "--from-spkt-plan",
        action="store_true",
        help="FILE is a `spkt consolidate --json` plan: one proposal per item",
    )
    p.add_argument("--schema", action="store_true", help="print the proposal JSON Schema and exit")
    p.add_argument("--source", default="cli", help="recorded as the proposals' source (cli)")
    p.add_argument(
        "--recall",
        metavar="ID",
        help="a logged recall (rc-…): its hits not consulted become each proposal's retrieved",
    )
    _json(p)


def _recall(sub: argparse._SubParsersAction) -> None:
    p = _leaf(
        sub,
        "recall",
        "recall:recall",
        "the lessons that matter for a draft, ranked, with why (logged, never graded)",
        epilog="Give free text (--text), user neurons (--ref), a draft proposal (--draft FILE, "
        "- for stdin), or any mix. Scores: BM25 over lesson text with [user:…] expanded, "
        "spreading from the draft's neurons, weighted by FSRS retrievability now. Each "
        "recall is logged; pass its id to `propose --recall`.",
    )
    _location(p, positional=True)
    p.add_argument("--text", default="", help="what the draft is about, in words")
    p.add_argument(
        "--ref", action="append", default=[], metavar="NEURON", help="a user neuron (repeatable)"
    )
    p.add_argument("--draft", metavar="FILE", help="a draft proposal (JSON object), - for stdin")
    p.add_argument("--skill", help="only this skill's lessons (curator, tutor, qabot…)")
    p.add_argument("--limit", type=int, default=10, help="hits to return (1–100, default 10)")
    p.add_argument("--no-log", action="store_true", help="do not log this recall (no id)")
    p.add_argument("--runtime", help="the asking runtime, recorded with the recall")
    _json(p)


def _mcp(sub: argparse._SubParsersAction) -> None:
    p = _leaf(
        sub,
        "mcp",
        "mcp:mcp",
        "serve curator tools over MCP on stdin/stdout",
        epilog="Run by an MCP client, not by hand: tools to propose, read decisions back "
        "and inspect reflections; the curator guide and the proposal schema as "
        "resources. Setup: docs/curator.md.",
    )
    _location(p, positional=True)
    p.add_argument(
        "--runtime",
        metavar="NAME",
        help="the curator runtime its proposals are recorded with (default: the client's name)",
    )


def _filters(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--status",
        choices=STATUSES,
        default="pending",
        metavar="STATUS",
        help=f"{', '.join(STATUSES)} (default: pending; decided = accepted or rejected)",
    )
    p.add_argument(
        "--kind",
        action="append",
        choices=KINDS,
        metavar="KIND",
        help="only this kind (repeatable): " + ", ".join(KINDS),
    )
    p.add_argument("--skill", action="append", help="only this skill (repeatable)")
    p.add_argument("--since", metavar="WHEN", help="on or after: ISO date/time or age (7d, 12h)")
    p.add_argument("--until", metavar="WHEN", help="before: ISO date/time or age")
    p.add_argument(
        "--on",
        choices=["created", "decided"],
        help="time field for --since/--until (default: decided for decided statuses)",
    )


def _proposals(sub: argparse._SubParsersAction) -> None:
    top = sub.add_parser(
        "proposals", help="list, show, accept, reject, dismiss, undo proposals; queue health"
    )
    acts = top.add_subparsers(dest="action", metavar="ACTION", required=True)

    p = _leaf(acts, "list", "proposals_read:list_", "list proposals (oldest first)")
    _location(p)
    _filters(p)
    p.add_argument(
        "--stale",
        action="store_true",
        help="only pending proposals older than queue.stale_after_days (default 7)",
    )
    p.add_argument("--limit", type=int, default=100, help="rows per page (default 100)")
    p.add_argument("--after", metavar="CURSOR", help="next page: the previous page's cursor")
    _json(p)

    p = _leaf(
        acts,
        "health",
        "proposals_health:health",
        "queue health: stale proposals, a queue growing faster than it is decided",
        epilog="Thresholds: [queue] in .spikuit/brainview.toml (docs/config.md). With --notify "
        "and an alert, runs queue.notify_command (an argv, no shell) with the summary JSON on "
        "stdin; its failure is one line and exit code 15.",
    )
    _location(p)
    p.add_argument("--notify", action="store_true", help="on an alert, run queue.notify_command")
    _json(p)

    p = _leaf(acts, "show", "proposals_read:show", "one proposal with both brains' context")
    p.add_argument("id", metavar="ID", help="proposal id")
    _location(p)
    _json(p)

    verbs = {
        "accept": "accept pending proposals, all or none (applied unless record-only)",
        "reject": "reject pending proposals, all or none (each writes a lesson)",
        "dismiss": "set pending proposals aside without a verdict (no grades)",
    }
    for verdict, help_ in verbs.items():
        p = _leaf(acts, verdict, f"proposals:{verdict}", help_)
        p.add_argument("ids", nargs="+", metavar="ID", help="proposal ids")
        p.add_argument("--reason", help="why (stored; a rejection's reflection quotes it)")
        p.add_argument("--decider", help="who decides (default: config review.decider, OS user)")
        if verdict == "accept":
            p.add_argument(
                "--policy-text",
                metavar="FILE",
                help="a policy proposal's edited text, from FILE (- = stdin)",
            )
        _location(p)
        _json(p)

    p = _leaf(
        acts,
        "approvals",
        "proposals_approvals:approvals",
        "votes waiting for a second person (the two-person rule) and agreement",
        epilog="Rules: [two_person] in .spikuit/brainview.toml (docs/team.md).",
    )
    _location(p)
    _json(p)

    p = _leaf(
        acts, "withdraw", "proposals_approvals:withdraw", "withdraw an approval still waiting"
    )
    p.add_argument("id", metavar="ID", help="proposal id, vote id or invalidate:… subject")
    p.add_argument("--reason", help="why (stored)")
    p.add_argument("--decider", help="who withdraws (default: config review.decider, OS user)")
    _location(p)
    _json(p)

    p = _leaf(acts, "undo", "proposals:undo", "undo a decision exactly")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("id", nargs="?", metavar="ID", help="decision id (or a decided proposal)")
    which.add_argument("--last", action="store_true", help="the most recent decision")
    p.add_argument("--decider", help="who undoes (default: config review.decider, OS user)")
    _location(p)
    _json(p)


def _who(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--actor", dest="decider", help="who acts (default: config review.decider, OS user)"
    )


def _reflect(sub: argparse._SubParsersAction) -> None:
    top = sub.add_parser(
        "reflect", help="read, challenge, invalidate, consolidate reflections; pause writing"
    )
    acts = top.add_subparsers(dest="action", metavar="ACTION", required=True)

    p = _leaf(acts, "list", "reflect:list_", "reflections by id, a keyset page at a time")
    _location(p)
    p.add_argument("--skill", help="only this skill (the reflection's domain)")
    p.add_argument(
        "--status", choices=["live", "retired", "all"], default="live", help="(default: live)"
    )
    p.add_argument("--type", default="reflection", help="neuron type (default: reflection)")
    p.add_argument(
        "--after",
        metavar="ID",
        help="next page: ids after this one (with --sort influence: the next_after printed)",
    )
    p.add_argument("--limit", type=int, default=50, help="rows per page (default 50)")
    p.add_argument(
        "--sort",
        choices=["id", "influence"],
        default="id",
        help="order: by id (default) or by influence, highest first",
    )
    p.add_argument(
        "--suspicious",
        action="store_true",
        help="only lessons with a suspicion signal, ranked by influence x suspicion",
    )
    _json(p)

    p = _leaf(acts, "inspect", "reflect:inspect", "a reflection's card, spikes, refs, audit trail")
    p.add_argument("id", metavar="ID", help="reflection id")
    _location(p)
    p.add_argument("--spikes", type=int, default=50, help="most recent spikes shown (50)")
    _json(p)

    verbs = {
        "challenge": "flag reflections for review (still consulted, shown with a warning)",
        "quarantine": "never recall reflections again until released; every row kept",
        "release": "bring quarantined reflections back into recall",
        "invalidate": "soft-retire reflections: never consulted again, history kept",
        "reinstate": "bring challenged, quarantined or invalidated reflections back to live",
    }
    for verb, help_ in verbs.items():
        p = _leaf(acts, verb, f"reflect_lifecycle:{verb}", help_)
        p.add_argument("ids", nargs="+", metavar="ID", help="reflection ids (- reads stdin)")
        need = "" if verb in ("reinstate", "release") else " (required)"
        p.add_argument("--reason", help=f"why{need}; recorded with the batch")
        _who(p)
        _location(p)
        _json(p)

    p = _leaf(
        acts, "replay", "reflect_replay:replay", "past recalls and decisions a lesson changed"
    )
    p.add_argument("id", metavar="ID", help="reflection id")
    p.add_argument("--limit", type=int, default=200, help="recalls replayed, newest first (200)")
    _location(p)
    _json(p)

    p = _leaf(acts, "undo", "reflect_lifecycle:undo", "undo a lifecycle batch exactly")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("batch", nargs="?", metavar="BATCH", help="batch id (lcb-…)")
    which.add_argument("--last", action="store_true", help="the most recent batch")
    _who(p)
    _location(p)
    _json(p)

    p = _leaf(acts, "fading", "reflect_lifecycle:fading", "reflections about to fall below R")
    _location(p)
    p.add_argument("--threshold", type=float, help="R threshold (config pruning_threshold)")
    p.add_argument("--days", type=int, help="horizon in days (config fading_days)")
    p.add_argument("--limit", type=int, default=500, help="rows (default 500)")
    _json(p)

    p = _leaf(
        acts,
        "consolidate",
        "reflect_consolidate:consolidate",
        "plan triage/SHY/SWS/REM and queue each change as a proposal",
        epilog="Items: prune_reflection (SWS), decay_synapses (SHY), summarize_community "
        "and retire_policy (REM). Settings: [consolidate] in docs/config.md.",
    )
    _location(p)
    p.add_argument("--dry-run", action="store_true", help="show the plan, queue nothing")
    p.add_argument("--threshold", type=float, help="R threshold (config pruning_threshold)")
    _json(p)

    for verb, help_ in (
        ("disable", "pause reflection writing: decisions grade, rejections write none"),
        ("enable", "resume reflection writing for the project"),
    ):
        p = _leaf(acts, verb, f"reflect_consolidate:{verb}", help_)
        if verb == "disable":
            p.add_argument("--reason", help="why (shown in the console)")
        _who(p)
        _location(p)
        _json(p)


def _outcome(sub: argparse._SubParsersAction) -> None:
    top = sub.add_parser("outcome", help="record tutor / QABot outcomes: grade what they consulted")
    acts = top.add_subparsers(dest="action", metavar="ACTION", required=True)
    p = _leaf(
        acts,
        "report",
        "outcome:report",
        "record a tutor hint or QABot answer that succeeded or failed (one transaction)",
        epilog="Give the outcome as flags or as one JSON object in FILE (- = stdin; shape in "
        "docs/curator.md), not both. Success grades supporting lessons strong, failure grades "
        "them miss and writes a lesson. The same --id and content again records nothing "
        "(already_recorded); the same --id with other content is refused (exit 5).",
    )
    p.add_argument("file", nargs="?", metavar="FILE", help="a JSON object, or - for stdin")
    p.add_argument("--id", help="your id for this outcome: makes retries safe (default: new)")
    p.add_argument("--skill", choices=["tutor", "qabot"], help="which skill reports")
    p.add_argument("--result", choices=["success", "failure"], help="how it went")
    p.add_argument("--situation", help="one line: what was tried and what happened")
    p.add_argument(
        "--consulted",
        action="append",
        metavar="ID[:STANCE[:NOTE]]",
        help="a reflection it consulted (repeatable); stance support (default), oppose, annotate",
    )
    p.add_argument("--lesson", help="the lesson a failure writes (default: from the situation)")
    p.add_argument("--runtime", help="model or agent version that produced it")
    p.add_argument("--decider", help="recorded as the decider (default: the skill name)")
    _location(p)
    _json(p)

    p = _leaf(acts, "show", "outcome:show", "a recorded outcome: its decision, grades and lesson")
    p.add_argument("id", metavar="ID", help="outcome id")
    _location(p)
    _json(p)

    p = _leaf(acts, "undo", "outcome:undo", "undo an outcome exactly (grades, lesson, its rows)")
    p.add_argument("id", metavar="ID", help="outcome id")
    p.add_argument("--decider", help="who undoes (default: config review.decider, OS user)")
    _location(p)
    _json(p)


def _held_back(sub: argparse._SubParsersAction) -> None:
    top = sub.add_parser(
        "held-back", help="drafts the curator held back after recall: see them, decide them"
    )
    acts = top.add_subparsers(dest="action", metavar="ACTION", required=True)
    p = _leaf(
        acts,
        "report",
        "held_back:report",
        "record a draft the curator withdrew or rewrote after recall (append-only)",
        epilog="One JSON object in FILE (- = stdin; shape in docs/curator.md): action "
        "withdrawn|rewritten, the draft (a proposal object), the recall id and the lessons "
        "that opposed it. The same id and content again records nothing (already_reported).",
    )
    p.add_argument("file", metavar="FILE", help="a JSON object, or - for stdin")
    p.add_argument("--runtime", help="who reports, when the report names none (default: actor)")
    _who(p)
    _location(p)
    _json(p)

    p = _leaf(
        acts,
        "list",
        "held_back:list_",
        "the held-back lane: drafts opposed by weakly corroborated lessons, plus a sample",
        epilog="Configured in [held_back] (min_confirmations, sample_rate, sample_seed).",
    )
    p.add_argument("--all", action="store_true", help="every reported draft, decided or not")
    p.add_argument("--limit", type=int, default=200, help="at most this many (default 200)")
    _location(p)
    _json(p)

    p = _leaf(
        acts,
        "decide",
        "held_back:decide",
        "should-have-proposed (queue it; opposing lessons miss) or rightly-held-back (strong)",
    )
    p.add_argument("id", metavar="ID", help="held-back draft id")
    p.add_argument("verdict", choices=["should-have-proposed", "rightly-held-back"])
    p.add_argument("--reason", help="why (kept with the verdict)")
    _who(p)
    _location(p)
    _json(p)

    p = _leaf(acts, "undo", "held_back:undo", "undo the verdict on a held-back draft exactly")
    p.add_argument("id", metavar="ID", help="held-back draft id (or the verdict's decision id)")
    _who(p)
    _location(p)
    _json(p)


def _communities(sub: argparse._SubParsersAction) -> None:
    top = sub.add_parser("communities", help="clusters of similar reflections")
    acts = top.add_subparsers(dest="action", metavar="ACTION", required=True)
    p = _leaf(acts, "list", "communities:list_", "communities with size, skills, mean R, grades")
    _location(p)
    p.add_argument(
        "--sort", choices=["size", "fading", "misses"], default="size", help="(default: size)"
    )
    p.add_argument("--limit", type=int, default=300, help="rows (default 300)")
    _json(p)
    p = _leaf(acts, "show", "communities:show", "one community's members, weakest first")
    p.add_argument(
        "number", metavar="N", help="community number as listed (from 1), or 'unclustered'"
    )
    _location(p)
    p.add_argument("--limit", type=int, default=500, help="rows (default 500)")
    _json(p)


def _export(sub: argparse._SubParsersAction) -> None:
    p = _leaf(
        sub,
        "export",
        "export:export",
        "export proposals, decisions, reflections or communities (JSON, CSV)",
        epilog="CSV cells hold the data verbatim; on a terminal, control characters are "
        "shown as visible symbols instead (use --out or a pipe for the exact bytes).",
    )
    p.add_argument("dataset", choices=DATASETS, help="what to export")
    _location(p)
    p.add_argument("--format", choices=["json", "jsonl", "csv"], default="json", help="(json)")
    p.add_argument(
        "--out", metavar="FILE", help="write FILE atomically instead of stdout ('-': stdout)"
    )
    p.add_argument(
        "--force", action="store_true", help="replace an existing FILE (or a symlink itself)"
    )
    p.add_argument("--since", metavar="WHEN", help="on or after (created_at / decided_at)")
    p.add_argument("--until", metavar="WHEN", help="before (created_at / decided_at)")


SIM_ARMS_HELP = "off,on,no-consolidation,no-stdp,poisoned,poisoned-vigilant,poisoned-watchful"
"""The arms the ``--arms`` help names (round one's; the generated help text pins it)."""
SIM_ARMS = (
    f"{SIM_ARMS_HELP},lanes,lanes-x3,suppress,suppress-control,trigger,trigger-control,graft,"
    "graft-control,gaming,gaming-control,laundered,laundered-control"
)
"""Mirrors :data:`brainview.sim.arms.ARMS` (a test checks they agree)."""


def _simulate(sub: argparse._SubParsersAction) -> None:
    p = _leaf(
        sub,
        "simulate",
        "simulate:simulate",
        "does the reflection loop teach? simulated arms side by side over seeds",
        epilog="A scripted curator and maintainer on a demo user brain; intake, recall, "
        "decisions, grades, STDP, consolidation and invalidation are brainview's own. Runs "
        "in temporary projects (no brain of yours is opened). Report: docs/efficacy.md.",
    )
    p.add_argument("--arms", default=SIM_ARMS, help=f"comma-separated ({SIM_ARMS_HELP}; "
                   "also no-feedback)")  # fmt: skip
    p.add_argument("--seeds", type=int, help="how many seeds (default 10)")
    p.add_argument("--first-seed", type=int, help="the first seed (default 1)")
    p.add_argument("--weeks", type=int, help="simulated weeks (default 8)")
    p.add_argument("--drafts-per-day", type=int, help="curator drafts per weekday (default 4)")
    p.add_argument("--user-neurons", type=int, help="user brain size (default 300)")
    p.add_argument("--noise", type=float, help="maintainer error rate (default 0.05)")
    p.add_argument("--threshold", type=float, help="curator's opposition threshold (0.45)")
    p.add_argument("--poison", type=float, help="share of lessons poisoned (default 0.05)")
    p.add_argument("--results", metavar="FILE", help="write the raw results (JSON) to FILE")
    p.add_argument("--from-results", metavar="FILE", help="redraw from stored results, no run")
    p.add_argument("--svg-dir", metavar="DIR", help="write one SVG per figure into DIR")
    p.add_argument("--report", metavar="FILE", help="write the report (docs/efficacy.md)")
    p.add_argument(
        "--plot", action="append", default=[], metavar="FIGURE",
        help="render a figure in the terminal (acceptance, repeated, mac, cost, policies, "
        "poisoning, all); repeatable",
    )  # fmt: skip
    _json(p)


def _learnings(sub: argparse._SubParsersAction) -> None:
    top = sub.add_parser(
        "learnings", help="import a self-improving agent's .learnings/ tree; plan its tier moves"
    )
    acts = top.add_subparsers(dest="action", metavar="ACTION", required=True)
    p = _leaf(
        acts,
        "import",
        "learnings:import_",
        "import (again) a .learnings/ tree as reflections in an agent brain",
        epilog="Re-importing is idempotent: known entries are followed where they moved, "
        "new lines added, tombstoned text refused. Mapping and limits: docs/learnings.md.",
    )
    p.add_argument("dir", help="the .learnings directory (or ~/self-improving)")
    p.add_argument("--into", "-C", metavar="PROJECT", help="project dir (default: DIR's parent)")
    p.add_argument("--init", action="store_true", help="create missing brains (empty) first")
    p.add_argument("--dry-run", action="store_true", help="only parse and count; write nothing")
    _json(p)
    p = _leaf(
        acts,
        "plan",
        "learnings:plan",
        "queue the tier rules' moves (promote, demote, archive, graduate) as proposals",
    )
    _location(p, positional=True)
    p.add_argument("--dry-run", action="store_true", help="only list the moves; queue nothing")
    _json(p)


def _users(sub: argparse._SubParsersAction) -> None:
    top = sub.add_parser(
        "users", help="who may sign in to `brainview serve`: names, roles, passwords, tokens"
    )
    acts = top.add_subparsers(dest="action", metavar="ACTION", required=True)

    def where(p: argparse.ArgumentParser) -> None:
        _location(p)
        p.add_argument(
            "--file", metavar="FILE", help="the users file (default .spikuit/brainview-users.json)"
        )

    def secret(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--password-stdin",
            action="store_true",
            help="read the password as one line of stdin (default: ask twice on the terminal)",
        )

    p = _leaf(
        acts,
        "add",
        "users:add",
        "add a person who may sign in, with a role and a password",
        epilog="Roles: viewer reads; reviewer also triages and rescues or lets go fading "
        "reflections; maintainer may do everything. See docs/team.md.",
    )
    p.add_argument("name", metavar="NAME", help="1-64 letters, digits, '.', '_' or '-'")
    p.add_argument("--role", required=True, choices=["viewer", "reviewer", "maintainer"])
    secret(p)
    where(p)
    p = _leaf(acts, "list", "users:list_", "people who may sign in (never a hash)")
    where(p)
    _json(p)
    p = _leaf(acts, "remove", "users:remove", "remove a person; their sessions end")
    p.add_argument("name", metavar="NAME")
    where(p)
    p = _leaf(acts, "role", "users:role", "change a person's role (from their next sign-in)")
    p.add_argument("name", metavar="NAME")
    p.add_argument("role", choices=["viewer", "reviewer", "maintainer"], metavar="ROLE",
                   help="viewer, reviewer or maintainer")  # fmt: skip
    where(p)
    p = _leaf(acts, "passwd", "users:passwd", "set a person's password")
    p.add_argument("name", metavar="NAME")
    secret(p)
    where(p)
    p = _leaf(
        acts,
        "token",
        "users:token",
        "issue or rotate a person's bearer token (printed once)",
        epilog="Scripts send it as `Authorization: Bearer TOKEN`. Only its SHA-256 is kept; "
        "issuing a new one ends the old one.",
    )
    p.add_argument("name", metavar="NAME")
    where(p)
    _json(p)


def build_parser() -> Parser:
    """The whole command tree."""
    parser = Parser(prog="brainview", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"brainview {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    _basic(sub)
    _propose(sub)
    _recall(sub)
    _mcp(sub)
    _proposals(sub)
    _reflect(sub)
    _outcome(sub)
    _held_back(sub)
    _communities(sub)
    _export(sub)
    _simulate(sub)
    _learnings(sub)
    _users(sub)
    return parser


def leaves(parser: argparse.ArgumentParser, prefix: str = "") -> dict[str, argparse.ArgumentParser]:
    """Every (sub)parser by its command path: ``""``, ``"stats"``, ``"proposals list"``…"""
    out = {prefix: parser}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                out.update(leaves(child, f"{prefix} {name}".strip()))
    return out
