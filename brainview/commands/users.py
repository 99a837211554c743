"""``brainview users add|list|remove|role|passwd|token``: who may sign in to ``serve``.

The users file is ``.spikuit/brainview-users.json`` of the project (``-C``), or
``--file FILE``.  Passwords are read from the terminal (asked twice, not echoed) or,
for scripts, one line from stdin with ``--password-stdin``; never from the command
line, where other users of the machine could read them.  A bearer token is printed
once, alone on stdout, when it is issued.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path

from brainview.commands.common import cell, emit_json, emit_lines, note, now, paths_of
from brainview.errors import InvalidInputError, UsageError


def users_path(args: argparse.Namespace) -> Path:
    """``--file FILE``, else the project's ``.spikuit/brainview-users.json``."""
    from brainview.services.team.accounts import default_path

    if getattr(args, "file", None):
        if getattr(args, "project", None) or args.user or args.agent:
            raise UsageError("give the users file either with --file or with -C, not both")
        return Path(args.file)
    return default_path(paths_of(args).spikuit_dir)


def _accounts(args: argparse.Namespace):  # noqa: ANN202 - services.team.accounts.Accounts
    from brainview.services.team.accounts import Accounts

    return Accounts(users_path(args))


def read_password(args: argparse.Namespace) -> str:
    """The new password: one line of stdin (``--password-stdin``) or asked twice."""
    from brainview.services.team.accounts import valid_password

    if args.password_stdin:
        line = sys.stdin.readline()
        if not line:
            raise InvalidInputError("--password-stdin: stdin is empty")
        return valid_password(line.removesuffix("\n").removesuffix("\r"), args.name)
    if not sys.stdin.isatty():
        raise UsageError("no terminal to ask for the password: use --password-stdin")
    first = getpass.getpass("New password: ")
    valid_password(first, args.name)
    if getpass.getpass("Repeat it: ") != first:
        raise InvalidInputError("the two passwords differ; nothing changed")
    return first


def add(args: argparse.Namespace) -> int:
    """``brainview users add NAME --role ROLE [--password-stdin]``."""
    from brainview.services.team.accounts import valid_name, valid_role

    accounts = _accounts(args)
    valid_name(args.name)
    valid_role(args.role)
    password = read_password(args)
    account = accounts.add(args.name, args.role, password, now=now().isoformat())
    note(f"added {account.name} ({account.role}) to {cell(accounts.path, 200)}")
    return 0


def list_(args: argparse.Namespace) -> int:
    """``brainview users list [--json]``: names, roles, whether a password is set, the
    token's id; never a hash."""
    accounts = _accounts(args)
    rows = [a.listing() for _, a in sorted(accounts.load().accounts.items())]
    if args.json:
        emit_json({"file": str(accounts.path), "users": rows, "count": len(rows)})
        return 0
    if not rows:
        note(f"no users in {cell(accounts.path, 200)}: `brainview users add NAME --role ROLE`")
        return 0
    lines = [f"{'NAME':<24} {'ROLE':<10} {'PASSWORD':<8} {'TOKEN':<8} CREATED"]
    for r in rows:
        lines.append(
            f"{r['name']:<24} {r['role']:<10} {'yes' if r['has_password'] else 'no':<8} "
            f"{r['token_id'] or '—':<8} {cell(r['created'], 32)}"
        )
    emit_lines(lines)
    return 0


def remove(args: argparse.Namespace) -> int:
    """``brainview users remove NAME``: the person's sessions end at once."""
    accounts = _accounts(args)
    account = accounts.remove(args.name)
    note(f"removed {account.name}; their signed-in sessions end at their next request")
    return 0


def role(args: argparse.Namespace) -> int:
    """``brainview users role NAME ROLE``."""
    accounts = _accounts(args)
    account = accounts.set_role(args.name, args.role)
    note(f"{account.name} is now {account.role} (from their next sign-in)")
    return 0


def passwd(args: argparse.Namespace) -> int:
    """``brainview users passwd NAME [--password-stdin]``."""
    from brainview.services.team.accounts import valid_name

    accounts = _accounts(args)
    valid_name(args.name)
    if args.name not in accounts.load().accounts:
        from brainview.errors import NotFoundError

        raise NotFoundError(f"no user {args.name} in {accounts.path}")
    accounts.set_password(args.name, read_password(args))
    note(f"password of {args.name} changed")
    return 0


def token(args: argparse.Namespace) -> int:
    """``brainview users token NAME [--json]``: issue (or rotate) the bearer token; printed
    once (alone on stdout, or as ``{"name", "token", "token_id", "issued"}``)."""
    accounts = _accounts(args)
    secret, account = accounts.issue_token(args.name, now=now().isoformat())
    token_id = account.token.token_id if account.token else "?"
    if args.json:
        emit_json(
            {"name": account.name, "token": secret, "token_id": token_id,
             "issued": account.token_issued}
        )  # fmt: skip
        return 0
    note(
        f"new token for {account.name} (id {token_id}); any older one stops working. "
        "It is shown only this once:"
    )
    sys.stdout.write(secret + "\n")
    return 0
