"""The console in a browser: ``brainview serve`` on a demo copy, loaded in headless
Chromium already on the machine (driven by Playwright; the suite installs nothing and
skips when there is no browser, see chromium_setup.py), one
proposal triaged with real keys; the decision must land in the agent brain.

The screen text is read from xterm's own buffer (tests/browser/console_page.py); every
wait is explicit and bounded, no sleep stands in for an assertion.
"""

from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path

from console_page import focus_terminal, launch, open_console, sync_api, wait_for_screen
from serving import start_serve

DB_WAIT_S = 30.0


def _agent_rows(root: Path) -> tuple[list[str], dict[str, str]]:
    """(decided proposal ids, one per decision row; proposal id → status)."""
    conn = sqlite3.connect(f"file:{root / '.spikuit' / 'agent' / 'circuit.db'}?mode=ro", uri=True)
    try:
        decided = [p for (p,) in conn.execute("SELECT proposal_id FROM brainview_decision")]
        statuses = dict(conn.execute("SELECT id, status FROM brainview_proposal").fetchall())
    finally:
        conn.close()
    return decided, statuses


def _wait_for_decisions(root: Path, count: int) -> list[str]:
    deadline = time.monotonic() + DB_WAIT_S
    while True:
        decided, _ = _agent_rows(root)
        if len(decided) >= count or time.monotonic() > deadline:
            return decided
        time.sleep(0.1)  # polling interval; the assertion follows the loop


def test_triage_one_proposal_in_the_browser(chromium: Path, demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    decided, before = _agent_rows(root)
    assert decided == [] and sum(s == "pending" for s in before.values()) == 36
    served = start_serve(str(root), "--screen", "overview")
    try:
        with sync_api.sync_playwright() as pw:
            browser = launch(pw, chromium)
            try:
                page = open_console(browser, served.url)
                overview = wait_for_screen(page, "live neurons")
                apps = served.children()
                focus_terminal(page)
                page.keyboard.press("2")
                triage = wait_for_screen(page, r"36 pending[\s\S]*prop-[0-9a-f]+ · ")
                focused = re.search(r"(prop-[0-9a-f]+) · ", triage).group(1)  # type: ignore[union-attr]
                page.keyboard.press("a")
                after = wait_for_screen(page, rf"^(?![\s\S]*{focused})[\s\S]*35 pending")
                shot = page.screenshot(path=str(tmp_path / "triage.png"))
            finally:
                browser.close()
    finally:
        code, out, err = served.stop()

    assert code == 0 and "Traceback" not in out + err, err
    assert len(apps) == 1 and not any(Path(f"/proc/{pid}").exists() for pid in apps)
    assert "User brain" in overview and "Agent brain" in overview
    assert focused not in after and shot.startswith(b"\x89PNG") and len(shot) > 20_000
    decided = _wait_for_decisions(root, 1)
    _, statuses = _agent_rows(root)
    assert decided == [focused], "exactly one decision, for the proposal shown focused"
    assert before[focused] == "pending" and statuses[focused] == "accepted"
    assert {p: s for p, s in statuses.items() if p != focused} == {
        p: s for p, s in before.items() if p != focused
    }
