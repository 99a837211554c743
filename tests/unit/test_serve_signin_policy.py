"""``brainview serve``'s sign-in policy as pure logic: sessions bound to the account's
fingerprint, lock-outs per (name, address) and per address with the name only slowed,
device cookies, the address believed behind ``--tls-proxy``, and slots per role."""

from __future__ import annotations

import asyncio
import time

import pytest
from aiohttp.test_utils import make_mocked_request

import brainview.web.slots as serve_slots
from brainview.services.team.accounts import Accounts, fingerprint, same_fingerprint
from brainview.web.sessions import SessionStore
from brainview.web.throttle import (
    ACCOUNT_FREE,
    ADDRESS_FREE,
    MAX_WAITING,
    PAIR_FREE,
    SLOW_MAX_S,
    UNPARSED,
    SignInLimits,
    TooMany,
    client_address,
    device_cookie,
    trusted_device,
)

PW = "correct horse battery"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_fingerprint_changes_with_password_role_and_recreation(tmp_path) -> None:  # type: ignore[no-untyped-def]
    accounts = Accounts(tmp_path / "u.json")
    accounts.add("ada", "maintainer", PW, now="t0")
    first = accounts.load().accounts["ada"]
    print_ = fingerprint(first)
    assert same_fingerprint(accounts.load().accounts["ada"], print_)
    accounts.issue_token("ada", now="t1")  # a token is another credential: no change
    assert same_fingerprint(accounts.load().accounts["ada"], print_)
    for change in (
        lambda: accounts.set_role("ada", "viewer"),
        lambda: accounts.set_password("ada", "another long passphrase"),
        lambda: (accounts.remove("ada"), accounts.add("ada", "maintainer", PW, now="t0")),
    ):
        change()
        now = accounts.load().accounts["ada"]
        assert not same_fingerprint(now, print_)
        print_ = fingerprint(now)
    assert not same_fingerprint(None, print_)


def test_sessions_are_kept_only_while_their_fingerprint_holds() -> None:
    store = SessionStore(clock=Clock())
    ada = store.create("ada", "maintainer", "print-1")
    bob = store.create("bob", "viewer", "print-2")
    store.keep_if(lambda s: s.fingerprint != "print-1")
    assert store.get(ada.id) is None and store.get(bob.id) is bob


def test_an_outsider_locks_out_only_their_own_address() -> None:
    limits = SignInLimits(clock=Clock())
    for _ in range(50):
        if limits.retry_after("ada", "203.0.113.9") == 0:
            limits.failed("ada", "203.0.113.9")
    assert limits.retry_after("ada", "203.0.113.9") > 0  # the pair is locked
    assert limits.retry_after("ada", "198.51.100.7") == 0  # ada's own address is not
    assert limits.retry_after("bob", "203.0.113.9") == 0  # under its address budget
    assert limits.slow_for("ada") == 0  # one address alone does not even slow the name


def test_an_address_guessing_many_names_is_locked_out() -> None:
    limits = SignInLimits(clock=Clock())
    for k in range(ADDRESS_FREE):
        limits.failed(f"name{k}", "203.0.113.9")
    assert limits.retry_after("someone-else", "203.0.113.9") > 0
    assert limits.retry_after("someone-else", "198.51.100.7") == 0


def test_rotating_addresses_is_slowed_on_the_name_never_refused() -> None:
    clock = Clock()
    limits = SignInLimits(clock=clock)
    for k in range(ACCOUNT_FREE * 3):
        assert limits.retry_after("ada", f"192.0.2.{k}") == 0
        limits.failed("ada", f"192.0.2.{k}")
    assert limits.slow_for("ada") == SLOW_MAX_S
    clock.now += 16 * 60  # past the window: forgotten
    assert limits.slow_for("ada") == 0
    assert PAIR_FREE < ACCOUNT_FREE < ADDRESS_FREE


def test_slowed_tries_run_one_at_a_time_and_a_known_device_skips_the_queue(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    limits = SignInLimits(clock=Clock())
    for k in range(ACCOUNT_FREE):
        limits.failed("ada", f"192.0.2.{k}")
    pauses: list[float] = []

    async def sleep(seconds: float) -> None:
        pauses.append(seconds)

    monkeypatch.setattr("brainview.web.throttle.asyncio.sleep", sleep)

    async def run() -> None:
        async with limits.turn("ada", trusted=True):
            assert pauses == []
        async with limits.turn("ada", trusted=False):
            assert pauses and pauses[0] > 0
        limits._waiting["ada"] = MAX_WAITING  # a flood already waits
        with pytest.raises(TooMany):
            async with limits.turn("ada", trusted=False):
                pass
        async with limits.turn("ada", trusted=True):  # the person's browser still gets in
            pass

    asyncio.run(run())


def test_device_cookies_are_bound_to_the_account_and_its_password(tmp_path) -> None:  # type: ignore[no-untyped-def]
    accounts = Accounts(tmp_path / "u.json")
    accounts.add("ada", "reviewer", PW, now="t0")
    accounts.add("bob", "reviewer", "quiet river stones 42", now="t0")
    ada, bob = (accounts.load().accounts[n] for n in ("ada", "bob"))
    cookie = device_cookie(ada)
    assert cookie is not None and trusted_device(ada, cookie)
    assert not trusted_device(bob, cookie)
    assert not trusted_device(ada, cookie[:-1] + ("0" if cookie[-1] != "0" else "1"))
    assert not trusted_device(ada, cookie, now=time.time() + 31 * 24 * 3600)  # expired
    assert not trusted_device(ada, "garbage") and not trusted_device(None, cookie)
    accounts.set_password("ada", "another long passphrase")
    assert not trusted_device(accounts.load().accounts["ada"], cookie)


def _request(peer: str, forwarded: list[str]):  # type: ignore[no-untyped-def]
    class Transport:
        def get_extra_info(self, name: str, default: object = None) -> object:
            return (peer, 40000) if name == "peername" else default

        def is_closing(self) -> bool:
            return False

    headers = [("X-Forwarded-For", value) for value in forwarded]
    from multidict import CIMultiDict

    return make_mocked_request("POST", "/login", headers=CIMultiDict(headers),
                               transport=Transport())  # fmt: skip


@pytest.mark.parametrize(
    ("peer", "forwarded", "tls_proxy", "expected"),
    [
        ("127.0.0.1", ["10.0.0.1, 203.0.113.9"], True, "203.0.113.9"),  # right-most
        ("127.0.0.1", ["203.0.113.9, 127.0.0.1"], True, "203.0.113.9"),  # a local hop
        ("127.0.0.1", ["10.0.0.1", "203.0.113.9"], True, "203.0.113.9"),  # two headers
        ("127.0.0.1", ["not-an-address"], True, UNPARSED),
        ("127.0.0.1", [], True, "127.0.0.1"),
        ("198.51.100.7", ["203.0.113.9"], True, "198.51.100.7"),  # reached directly
        ("127.0.0.1", ["203.0.113.9"], False, "127.0.0.1"),  # no proxy configured
    ],
)
def test_the_forwarded_address_is_believed_only_from_the_proxy(
    peer: str, forwarded: list[str], tls_proxy: bool, expected: str
) -> None:
    assert client_address(_request(peer, forwarded), tls_proxy=tls_proxy) == expected


def test_console_slots_are_kept_per_role() -> None:
    n = 8
    viewers = ["viewer"] * serve_slots.viewer_share(n)
    assert not serve_slots.admits("viewer", viewers, n)  # the viewers' share is used
    assert serve_slots.admits("reviewer", viewers, n)
    reviewers = ["reviewer"] * (n - 1)
    assert not serve_slots.admits("reviewer", reviewers, n)  # the last is a maintainer's
    assert serve_slots.admits("maintainer", reviewers, n)
    assert not serve_slots.admits("maintainer", ["maintainer"] * n, n)
    assert serve_slots.admits("viewer", [], 1) and not serve_slots.admits("viewer", [], 0)
    assert serve_slots.admits(None, [None] * (n - 1), n)  # no sign-in: one person
    two = ["viewer"]
    assert not serve_slots.admits("viewer", two, 2) and serve_slots.admits("reviewer", two, 2)
    for role in ("viewer", "reviewer", "maintainer", None):
        assert len(serve_slots.refusal(role, 256).encode()) <= 123  # type: ignore[arg-type]
