"""The console in a browser: ``brainview serve`` on a demo copy, loaded in headless
Chromium already on the machine (driven by Playwright; the suite installs nothing and
skips when there is no browser, see chromium_setup.py), one
proposal triaged with real keys; the decision must land in the agent brain.

The page draws the terminal on a canvas (xterm.js), so the test reads the screen text
from xterm's own buffer: an init script keeps a reference to the page's terminal.
Every wait is explicit and bounded; no sleep stands in for an assertion.
"""

from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest
from serving import start_serve

# Without the Playwright driver the test skips (conftest explains how to get it).
sync_api = pytest.importorskip("playwright.sync_api", reason="the Playwright driver is missing")
sync_playwright = sync_api.sync_playwright
PlaywrightTimeout = sync_api.TimeoutError

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

LAUNCH_ARGS = [
    *("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"),
    *("--disable-background-networking", "--disable-component-update", "--disable-sync"),
]
WAIT_MS = 30_000
DB_WAIT_S = 30.0

# The page's script does ``this.terminal = new Terminal(...)``: catch that assignment.
KEEP_TERMINAL = """
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  set(value) {
    Object.defineProperty(this, "terminal", {value, writable: true, configurable: true});
    if (value && value.buffer && value.buffer.active) { window.__bvTerminal = value; }
  },
});
window.__bvScreen = () => {
  const term = window.__bvTerminal;
  if (!term) { return ""; }
  const buffer = term.buffer.active, lines = [];
  for (let y = 0; y < term.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    lines.push(line ? line.translateToString(true) : "");
  }
  return lines.join("\\n");
};
"""


def _agent_rows(root: Path) -> tuple[list[str], dict[str, str]]:
    """(decided proposal ids, one per decision row; proposal id → status)."""
    conn = sqlite3.connect(f"file:{root / '.spikuit' / 'agent' / 'circuit.db'}?mode=ro", uri=True)
    try:
        decided = [p for (p,) in conn.execute("SELECT proposal_id FROM brainview_decision")]
        statuses = dict(conn.execute("SELECT id, status FROM brainview_proposal").fetchall())
    finally:
        conn.close()
    return decided, statuses


def _wait_for(page: Page, pattern: str) -> str:
    """Wait (bounded) until the terminal's text matches ``pattern``; returns that text."""
    try:
        page.wait_for_function(
            "p => new RegExp(p).test(window.__bvScreen())", arg=pattern, timeout=WAIT_MS
        )
    except PlaywrightTimeout:
        screen = page.evaluate("window.__bvScreen()")
        raise AssertionError(f"the page never matched {pattern!r}; it shows:\n{screen}") from None
    return str(page.evaluate("window.__bvScreen()"))


def _wait_for_decisions(root: Path, count: int) -> list[str]:
    deadline = time.monotonic() + DB_WAIT_S
    while True:
        decided, _ = _agent_rows(root)
        if len(decided) >= count or time.monotonic() > deadline:
            return decided
        time.sleep(0.1)  # polling interval; the assertion follows the loop


def _open_console(browser: Browser, url: str) -> Page:
    """A page on ``url`` that keeps a handle on its terminal; only ``url``'s host loads."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    host = urlsplit(url).hostname
    # The page also asks for web fonts from the internet: refused, so nothing leaves.
    page.route(
        "**/*",
        lambda route: (
            route.continue_() if urlsplit(route.request.url).hostname == host else route.abort()
        ),
    )
    page.add_init_script(KEEP_TERMINAL)
    page.goto(url, timeout=WAIT_MS)
    return page


def _focus_terminal(page: Page) -> None:
    """Keys reach the console through xterm's hidden textarea: focus it, and check."""
    page.locator(".xterm-helper-textarea").focus(timeout=WAIT_MS)
    page.wait_for_function(
        "() => document.activeElement?.classList.contains('xterm-helper-textarea')",
        timeout=WAIT_MS,
    )


def test_triage_one_proposal_in_the_browser(chromium: Path, demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    decided, before = _agent_rows(root)
    assert decided == [] and sum(s == "pending" for s in before.values()) == 36
    served = start_serve(str(root), "--screen", "overview")
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=str(chromium), args=LAUNCH_ARGS, headless=True, timeout=WAIT_MS
            )
            try:
                page = _open_console(browser, served.url)
                overview = _wait_for(page, "live neurons")
                apps = served.children()
                _focus_terminal(page)
                page.keyboard.press("2")
                triage = _wait_for(page, r"36 pending[\s\S]*prop-[0-9a-f]+ · ")
                focused = re.search(r"(prop-[0-9a-f]+) · ", triage).group(1)  # type: ignore[union-attr]
                page.keyboard.press("a")
                after = _wait_for(page, rf"^(?![\s\S]*{focused})[\s\S]*35 pending")
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
