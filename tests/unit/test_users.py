"""Who may sign in to ``brainview serve``: password hashing, the users file, the
``brainview users`` commands, and the in-memory sessions and sign-in throttle."""

from __future__ import annotations

import io
import json
import os
import stat
from pathlib import Path

import pytest
from test_cli import cli

from brainview.core import passwords
from brainview.core.passwords import (
    DUMMY,
    PasswordHash,
    hash_password,
    needs_rehash,
    new_token,
    verify_password,
    verify_token,
)
from brainview.errors import ExitCode
from brainview.services.team.accounts import (
    Accounts,
    Snapshot,
    check_password_of,
    check_token_of,
    default_path,
)
from brainview.web.sessions import FREE_FAILURES, SessionStore, Throttle

PW = "correct horse battery"


def test_scrypt_hash_verifies_and_keeps_its_parameters() -> None:
    stored = hash_password(PW)
    assert (stored.n, stored.r, stored.p) == (2**14, 8, 1) and len(stored.salt) == 16
    assert verify_password(PW, stored) and not verify_password(PW + "x", stored)
    assert hash_password(PW).salt != stored.salt  # a fresh salt each time
    again = PasswordHash.from_json(json.loads(json.dumps(stored.to_json())))
    assert again == stored and verify_password(PW, again)
    weak = hash_password(PW, n=2**10)
    assert verify_password(PW, weak) and needs_rehash(weak) and not needs_rehash(stored)
    assert not verify_password(PW, DUMMY) and not verify_password("x" * 5000, stored)


@pytest.mark.parametrize(
    "bad",
    [
        None,
        {},
        {**hash_password(PW, n=2**10).to_json(), "algorithm": "md5"},
        {**hash_password(PW, n=2**10).to_json(), "n": 2**30},  # would hang: refused
        {**hash_password(PW, n=2**10).to_json(), "n": 1000},  # not a power of two
        {**hash_password(PW, n=2**10).to_json(), "salt": "!!"},
        {**hash_password(PW, n=2**10).to_json(), "r": True},
    ],
)
def test_a_malformed_stored_hash_is_refused(bad: object) -> None:
    with pytest.raises(passwords.PasswordError):
        PasswordHash.from_json(bad)


@pytest.mark.parametrize("bad", ["short", "x" * 1025, "has\nnewline-inside", "nul\x00inside!"])
def test_unusable_passwords_are_refused(bad: str) -> None:
    with pytest.raises(passwords.PasswordError):
        hash_password(bad)


def test_tokens_are_stored_as_digests_only() -> None:
    token, stored = new_token()
    assert len(token) >= 43 and token not in stored.digest and len(stored.digest) == 64
    assert verify_token(token, stored) and not verify_token(token[:-1], stored)
    assert stored.token_id == stored.digest[:8]


def test_accounts_round_trip_and_checks(tmp_path: Path) -> None:
    accounts = Accounts(tmp_path / "u.json")
    accounts.add("ada", "reviewer", PW, now="t0")
    token, _ = accounts.issue_token("ada", now="t1")
    snap = accounts.load()
    assert check_password_of(snap, "ada", PW).name == "ada"  # type: ignore[union-attr]
    assert check_password_of(snap, "ada", "wrong password") is None
    assert check_password_of(snap, "nobody", PW) is None
    assert check_token_of(snap, token).name == "ada"  # type: ignore[union-attr]
    rotated, _ = accounts.issue_token("ada", now="t2")
    snap = accounts.load()
    assert check_token_of(snap, token) is None and check_token_of(snap, rotated) is not None
    accounts.set_role("ada", "maintainer")
    accounts.set_password("ada", "another long one")
    snap = accounts.load()
    assert snap.accounts["ada"].role == "maintainer"
    assert check_password_of(snap, "ada", "another long one") is not None
    assert snap.racy  # read within 2 s of its change: read again, whatever its stat says
    assert accounts.changed(snap) is True
    settled = Snapshot(snap.accounts, snap.signature)  # as if read a while later
    assert accounts.changed(settled) is False
    accounts.remove("ada")
    assert accounts.changed(settled) is True and accounts.load().accounts == {}


def _users(root: Path, *argv: str, stdin: str = "") -> tuple[int, str, str]:
    import sys

    saved = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        out = cli("users", *argv, "-C", str(root))
    finally:
        sys.stdin = saved
    return out.returncode, out.stdout, out.stderr


def test_users_cli_round_trip(demo) -> None:  # type: ignore[no-untyped-def]
    root = demo[0]
    path = default_path(root / ".spikuit")
    code, _, err = _users(
        root, "add", "ada", "--role", "reviewer", "--password-stdin", stdin=PW + "\n"
    )
    assert code == 0 and "added ada (reviewer)" in err
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    code, token, err = _users(root, "token", "ada")
    token = token.strip()
    assert code == 0 and len(token) >= 43 and "shown only this once" in err
    code, out, _ = _users(root, "token", "ada", "--json")
    rotated = json.loads(out)
    assert code == 0 and rotated["name"] == "ada" and rotated["token"] != token
    text = path.read_text()
    assert PW not in text and token not in text and rotated["token"] not in text
    assert rotated["token_id"] in text
    code, out, _ = _users(root, "list", "--json")
    (row,) = json.loads(out)["users"]
    assert row["name"] == "ada" and row["role"] == "reviewer" and row["has_password"] is True
    assert row["token_id"] and row["token_id"] in text and "hash" not in row
    assert row["hash_outdated"] is False
    assert _users(root, "role", "ada", "maintainer")[0] == 0
    assert _users(root, "passwd", "ada", "--password-stdin", stdin="a brand new one\n")[0] == 0
    snap = Accounts(path).load()
    assert snap.accounts["ada"].role == "maintainer"
    assert check_password_of(snap, "ada", "a brand new one") is not None
    code, out, _ = _users(root, "list")
    assert code == 0 and "ada" in out and "maintainer" in out and token not in out
    assert _users(root, "remove", "ada")[0] == 0
    assert Accounts(path).load().accounts == {}


@pytest.mark.parametrize(
    ("argv", "stdin", "code"),
    [
        (["add", "ada", "--role", "reviewer", "--password-stdin"], PW, ExitCode.CONFLICT),
        (["add", "b ob", "--role", "reviewer", "--password-stdin"], PW, ExitCode.INVALID_INPUT),
        (
            ["add", "bob", "--role", "reviewer", "--password-stdin"],
            "short\n",
            ExitCode.INVALID_INPUT,
        ),
        (["add", "bob", "--role", "reviewer", "--password-stdin"], "", ExitCode.INVALID_INPUT),
        (["add", "bob", "--role", "reviewer"], "", ExitCode.USAGE),  # no terminal
        (["add", "bob", "--role", "owner", "--password-stdin"], PW, ExitCode.USAGE),
        (["add", "bob", "--role", "viewer", "--password", PW], "", ExitCode.USAGE),
        (["remove", "zed"], "", ExitCode.NOT_FOUND),
        (["role", "zed", "viewer"], "", ExitCode.NOT_FOUND),
        (["passwd", "zed", "--password-stdin"], PW, ExitCode.NOT_FOUND),
        (["token", "zed"], "", ExitCode.NOT_FOUND),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(demo, argv, stdin, code) -> None:  # type: ignore[no-untyped-def]
    root = demo[0]
    path = default_path(root / ".spikuit")
    Accounts(path).add("ada", "reviewer", PW, now="t0")
    before = path.read_bytes()
    got, out, err = _users(root, *argv, stdin=stdin)
    assert got == int(code), err
    assert out == "" and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert path.read_bytes() == before


def test_a_symlinked_or_malformed_users_file_is_refused(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = demo[0]
    path = default_path(root / ".spikuit")
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text('{"version": 1, "users": {}}')
    path.symlink_to(elsewhere)
    code, _, err = _users(root, "add", "ada", "--role", "viewer", "--password-stdin", stdin=PW)
    assert code == ExitCode.BAD_PATH and "symbolic link" in err
    assert _users(root, "list")[0] == ExitCode.BAD_PATH
    assert elsewhere.read_text() == '{"version": 1, "users": {}}'
    path.unlink()
    for bad in ("{", '{"version": 2, "users": {}}', '{"version": 1, "users": {"a b": {}}}'):
        path.write_text(bad)
        code, _, err = _users(root, "list")
        assert code == ExitCode.CONFIG and len(err.strip().splitlines()) == 1


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_sessions_expire_idle_and_absolute_and_end_for_removed_people() -> None:
    clock = Clock()
    store = SessionStore(clock=clock, idle_s=60, absolute_s=300)
    ada = store.create("ada", "reviewer")
    assert ada.id != ada.csrf and store.get(ada.id) is ada
    clock.now += 59
    assert store.get(ada.id) is ada  # used: idle clock restarts
    clock.now += 59
    assert store.get(ada.id) is ada
    clock.now += 61
    assert store.get(ada.id) is None  # idle too long
    bob = store.create("bob", "viewer")
    for _ in range(6):
        clock.now += 50
        store.get(bob.id)
    assert store.get(bob.id) is None  # absolute limit, however busy
    cid = store.create("cid", "viewer")
    store.keep_only(["ada"])
    assert store.get(cid.id) is None
    assert store.get("never-issued") is None


def test_throttle_counts_per_key_and_backs_off() -> None:
    clock = Clock()
    throttle = Throttle(clock=clock)
    keys = ["ip:1", "name:ada"]
    for _ in range(FREE_FAILURES):
        assert throttle.retry_after(keys) == 0
        throttle.failed(keys)
    first = throttle.retry_after(keys)
    assert first > 0 and throttle.retry_after(["name:ada"]) == first
    assert throttle.retry_after(["ip:2", "name:bob"]) == 0
    clock.now += first
    assert throttle.retry_after(keys) == 0
    throttle.failed(keys)
    assert throttle.retry_after(keys) == pytest.approx(2 * first)  # exponential
    throttle.succeeded(["name:ada"])
    assert throttle.retry_after(["name:ada"]) == 0 and throttle.retry_after(["ip:1"]) > 0
    clock.now += 3 * 3600
    assert throttle.retry_after(keys) == 0  # forgotten after the window


def test_a_users_file_that_is_a_brain_side_file_is_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Plain reads never touch a brain's files (closing a descriptor drops its locks)."""
    from brainview.errors import InvalidInputError
    from brainview.store.users_file import read_users

    wal = tmp_path / "circuit.db-wal"
    wal.write_bytes(b"{}")
    with pytest.raises(InvalidInputError, match="brain database file"):
        read_users(wal)


@pytest.mark.parametrize(
    ("password", "why"),
    [
        ("password", "at least 12 characters"),
        ("password1234", "most common"),
        ("Password2024!", "most common"),
        ("passwordpassword", "most common"),
        ("correct horse battery staple", "most common"),
        ("aaaaaaaaaaaaaaaa", "different characters"),
        ("123456789012", "only digits and symbols"),
        ("2024-12-31 23:59", "only digits and symbols"),
        ("ada-likes-long-walks", "the person's name"),
        ("I am ADA LOVELACE", "the person's name"),
    ],
)
def test_weak_passwords_are_refused_where_they_are_set(
    tmp_path: Path, password: str, why: str
) -> None:
    with pytest.raises(passwords.PasswordError, match=why):
        passwords.check_password(password, "ada")
    accounts = Accounts(tmp_path / "u.json")
    from brainview.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match=why):
        accounts.add("ada", "reviewer", password, now="t0")
    assert not (tmp_path / "u.json").exists()
    accounts.add("ada", "reviewer", PW, now="t0")
    before = (tmp_path / "u.json").read_bytes()
    with pytest.raises(InvalidInputError, match=why):
        accounts.set_password("ada", password)
    assert (tmp_path / "u.json").read_bytes() == before


def test_strong_passwords_are_taken() -> None:
    for good in (PW, "quiet river stones 42", "Tr0ub4dor&3-plus-more", "zq8#Lm2!vR5p"):
        assert passwords.check_password(good, "ada") == good


@pytest.mark.parametrize("verb", ["add", "passwd"])
def test_the_users_command_refuses_a_weak_password_in_one_line(demo, verb: str) -> None:  # type: ignore[no-untyped-def]
    root = demo[0]
    path = default_path(root / ".spikuit")
    if verb == "passwd":
        Accounts(path).add("bob", "viewer", PW, now="t0")
    before = path.read_bytes() if path.exists() else None
    argv = ["add", "bob", "--role", "viewer"] if verb == "add" else ["passwd", "bob"]
    code, out, err = _users(root, *argv, "--password-stdin", stdin="password\n")
    assert code == ExitCode.INVALID_INPUT and out == ""
    assert err.strip().count("\n") == 0 and "at least 12 characters" in err
    assert "Traceback" not in err
    assert (path.read_bytes() if path.exists() else None) == before
    code, _, err = _users(root, *argv, "--password-stdin", stdin="bobby-tables-forever\n")
    assert code == ExitCode.INVALID_INPUT and "the person's name" in err
