"""Two people on one ``brainview serve`` (issue 19): ada (reviewer) and bob (maintainer)
sign in through the real form in two Chromium contexts (two cookie jars, one browser)
and triage the same queue of a demo copy.  Each sees where the other looks (``◉ ada``),
decisions made at the same moment are each written once and by the person who made
them, the other's screen says who decided and drops the row, and the roles hold: ada
cannot undo bob's decision nor invalidate a reflection, bob can invalidate.

People are added with the real CLI (``brainview users add … --password-stdin``).  Every
wait is bounded and explicit (tests/browser/console_page.py); the brains are read
read-only by this process.  Skips when there is no Chromium or Playwright driver.
"""

from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING

from console_page import (
    WAIT_MS,
    focus_terminal,
    launch,
    open_console,
    screen_text,
    sign_in,
    sync_api,
    wait_for_screen,
)
from serving import add_person, start_serve

from brainview.services.project import Project
from brainview.services.review.flags import reasons
from brainview.services.review.queue import page as queue_page

if TYPE_CHECKING:
    from playwright.sync_api import Page

PASSWORD = "correct horse battery"
DB_WAIT_S = 30.0
SOON_MS = 15_000
"""Bound on what the other console shows "within a few seconds" (it polls each 1 s)."""
FOCUSED = r"(prop-[0-9a-f]+) · "
LIVE = "undone_at IS NULL"
LIFECYCLE = "SELECT reflection_id, state, actor FROM brainview_lifecycle"
MEMBERS = r"#1 · [\s\S]*13 members[\s\S]*R now  S \(d\)"
"""The communities screen with its first community's members read."""
RID = r"r-[0-9a-f]{12}"
NEVER = "never challenged or invalidated"
UNDONE = "SELECT count(*) FROM brainview_decision WHERE undone_at IS NOT NULL"


def _add_person(root: Path, name: str, role: str) -> None:
    """``brainview users add NAME --role ROLE --password-stdin -C ROOT``, as a script would."""
    add_person(root, name, role, PASSWORD)


def _agent(root: Path, sql: str) -> list[tuple[object, ...]]:
    """Rows of the agent brain (read-only; an absent table reads as no rows)."""
    conn = sqlite3.connect(f"file:{root / '.spikuit' / 'agent' / 'circuit.db'}?mode=ro", uri=True)
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.OperationalError as err:
        if "no such table" in str(err):
            return []
        raise
    finally:
        conn.close()


def _live_decisions(root: Path) -> dict[str, list[str]]:
    """proposal id → deciders of its decision rows not undone (one each, if all is well)."""
    rows = _agent(
        root, "SELECT proposal_id, decider FROM brainview_decision WHERE undone_at IS NULL"
    )
    out: dict[str, list[str]] = {}
    for pid, decider in rows:
        out.setdefault(str(pid), []).append(str(decider))
    return out


def _until(what: str, check, timeout: float = DB_WAIT_S):  # type: ignore[no-untyped-def]
    """Poll ``check`` (bounded) until it returns something truthy; returns that."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)  # polling interval; the assertion is the check


def _seen(expected: dict[str, tuple[Page, str]], timeout: float = DB_WAIT_S) -> dict[str, str]:
    """Watch several pages at once (bounded) until each showed its pattern at least once
    (a notice lasts a few seconds: waiting for one page after the other could miss the
    second's); name → the screen that matched."""
    seen: dict[str, str] = {}
    deadline = time.monotonic() + timeout
    while len(seen) < len(expected):
        for name, (page, pattern) in expected.items():
            text = screen_text(page)
            if name not in seen and re.search(pattern, text):
                seen[name] = text
        if time.monotonic() > deadline:
            missing = {n: screen_text(p) for n, (p, _) in expected.items() if n not in seen}
            raise AssertionError(f"never shown: {missing}")
        time.sleep(0.05)  # polling interval; the assertion is the match
    return seen


def _queue(root: Path, *, clean: bool = False) -> list[str]:
    """The pending queue as the console sorts it (age); ``clean``: without flagged or
    stale proposals (accepting those asks first)."""
    with Project.locate(root) as project:
        rows, _ = queue_page(project, sort="age", limit=100)
    return [r.id for r in rows if not clean or not (r.stale or reasons(r.suspicion, r.leans))]


def _focused(page: Page) -> str:
    found = re.search(FOCUSED, screen_text(page))
    assert found, screen_text(page)
    return found.group(1)


def _move_to(page: Page, root: Path, proposal_id: str) -> None:
    """Put ``page``'s cursor on ``proposal_id``: ``g`` (first row), then ``j`` row by row
    along the queue as it is now, each move seen on the screen before the next key."""
    order = _queue(root)
    page.keyboard.press("g")
    wait_for_screen(page, f"{order[0]} · ")
    for nxt in order[1 : order.index(proposal_id) + 1]:
        page.keyboard.press("j")
        wait_for_screen(page, f"{nxt} · ")


def _sign_in_both(browser, url: str) -> tuple[Page, Page]:  # type: ignore[no-untyped-def]
    """ada and bob, each in a context of their own (own cookies), signed in through the
    form; both forms are sent before either console is waited for (they start together)."""
    pages = [open_console(browser.new_context(), url) for _ in ("ada", "bob")]
    for page, name in zip(pages, ("ada", "bob"), strict=True):
        sign_in(page, url, name, PASSWORD, wait=False)
    for page in pages:
        page.wait_for_url(url, timeout=WAIT_MS)
        wait_for_screen(page, r"36 pending[\s\S]*prop-[0-9a-f]+ · ")
        focus_terminal(page)
    return pages[0], pages[1]


def test_two_people_triage_one_queue(chromium: Path, demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    _add_person(root, "ada", "reviewer")
    _add_person(root, "bob", "maintainer")
    clean = _queue(root, clean=True)
    first, second, third = clean[:3]
    served = start_serve(str(root), "--screen", "triage")
    try:
        with sync_api.sync_playwright() as pw:
            browser = launch(pw, chromium)
            try:
                ada, bob = _sign_in_both(browser, served.url)
                titles = (screen_text(ada), screen_text(bob))
                assert _focused(ada) == _focused(bob) == first

                # 1. presence: ada moves to the second proposal; bob's queue marks it
                ada.keyboard.press("j")
                wait_for_screen(ada, f"{second} · ")
                marked = wait_for_screen(bob, "◉ ada", SOON_MS)
                bob.keyboard.press("j")  # bob opens it too: told ada is on it
                told = wait_for_screen(bob, rf"{second} · [\s\S]*ada is looking at\s+this")

                # 2. both accept at the same moment, bob back on the first proposal
                bob.keyboard.press("k")
                wait_for_screen(bob, f"{first} · ")
                ada.keyboard.press("a")
                bob.keyboard.press("a")
                _until("both decisions", lambda: len(_live_decisions(root)) == 2)
                after_2 = _live_decisions(root)
                # both rows left both queues.  Who decided is asserted in step 4, with
                # ada idle: a console whose own decision's re-read lands after the
                # other's commit drops the other's row without naming its decider
                # (the poll is skipped while deciding), so it is not asserted here.
                gone_2 = _seen({"ada": (ada, "34 pending"), "bob": (bob, "34 pending")})

                # 3. both accept the same proposal at the same moment
                _move_to(ada, root, third)
                _move_to(bob, root, third)
                ada.keyboard.press("a")
                bob.keyboard.press("a")
                _until("the third decision", lambda: third in _live_decisions(root))
                winner = _live_decisions(root)[third][0]
                loser = bob if winner == "ada" else ada
                loser_saw = wait_for_screen(loser, rf"Refused|accepted by\s+{winner}", SOON_MS)
                after_3 = _live_decisions(root)

                # 4. bob accepts one more while ada watches: her screen says who, and the
                # row leaves her queue
                fourth = clean[3]
                _move_to(bob, root, fourth)
                bob.keyboard.press("a")
                told_ada = wait_for_screen(ada, r"32 pending[\s\S]*accepted by\s+bob")
                after_4 = _live_decisions(root)

            finally:
                browser.close()
    finally:
        code, out, err = served.stop()

    assert code == 0 and "Traceback" not in out + err, err
    assert "brainview · ada · reviewer" in titles[0]
    assert "brainview · bob · maintainer" in titles[1]
    # 1. presence: bob's queue marks the row ada is on; bob, opening it, is told
    assert "◉ ada" in marked and "◉ bob" not in marked and told
    # 2. two decisions at once: each written once, each by who pressed, gone from both
    assert after_2 == {second: ["ada"], first: ["bob"]}
    assert len(gone_2) == 2
    # 3. the same proposal accepted by both at once: one decision; the other is told
    assert winner in ("ada", "bob") and after_3 == {**after_2, third: [winner]}
    assert "Refused" in loser_saw or f"accepted by {winner}" in loser_saw
    # 4. ada's screen named bob as the decider
    assert after_4 == {**after_3, fourth: ["bob"]}
    assert "accepted by bob" in " ".join(told_ada.split())


def test_roles_hold_across_two_browsers(chromium: Path, demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    _add_person(root, "ada", "reviewer")
    _add_person(root, "bob", "maintainer")
    first = _queue(root, clean=True)[0]
    served = start_serve(str(root), "--screen", "triage")
    try:
        with sync_api.sync_playwright() as pw:
            browser = launch(pw, chromium)
            try:
                ada, bob = _sign_in_both(browser, served.url)
                # 1. bob accepts; ada's console, which decided nothing, would undo the
                # project's last decision: his, so her u is refused at once (a
                # maintainer's), with no offer to confirm
                bob.keyboard.press("a")
                _until("bob's decision", lambda: first in _live_decisions(root))
                wait_for_screen(ada, "35 pending", SOON_MS)
                ada.keyboard.press("u")
                refused = wait_for_screen(ada, r"undoing someone else's[\s\S]*maintainer")
                after_undo = _live_decisions(root)

                # 2. both open the same reflection (communities, i: its view)
                for page in (ada, bob):
                    page.keyboard.press("3")
                    wait_for_screen(page, MEMBERS)
                    page.keyboard.press("i")
                ada_view = wait_for_screen(ada, rf"— ({RID})[\s\S]*{NEVER}")
                rid = re.search(rf"— ({RID})", ada_view).group(1)  # type: ignore[union-attr]
                bob_view = wait_for_screen(bob, rf"— {rid}[\s\S]*{NEVER}")

                # 3. ada's x does nothing: no dialog, so escape leaves the view (an open
                # dialog would have taken it)
                ada.keyboard.press("x")
                ada.keyboard.press("Escape")
                ada_back = wait_for_screen(ada, MEMBERS)
                no_rows = _agent(root, LIFECYCLE)

                # 4. bob's x opens the dialog: a reason, review the count, yes
                bob.keyboard.press("x")
                wait_for_screen(bob, r"Invalidate reflection[\s\S]*reason \(required\)")
                bob.keyboard.type("misleads the tutor")
                bob.keyboard.press("Enter")
                wait_for_screen(bob, r"Yes, invalidate \d")
                bob.keyboard.press("Enter")
                rows = _until("bob's invalidation", lambda: _agent(root, LIFECYCLE))
            finally:
                browser.close()
    finally:
        code, out, err = served.stop()
    assert code == 0 and "Traceback" not in out + err, err
    assert "needs the maintainer role" in " ".join(refused.split())
    assert after_undo == {first: ["bob"]}
    assert _agent(root, UNDONE) == [(0,)]
    ada_footer, bob_footer = ada_view.splitlines()[-1], bob_view.splitlines()[-1]
    assert "Invalidate" not in ada_footer and "Back" in ada_footer
    assert "x Invalidate…" in bob_footer
    assert "reason (required)" not in ada_back and no_rows == []
    assert (rid, "invalidated", "bob") in rows
    assert {actor for _, _, actor in rows} == {"bob"}
