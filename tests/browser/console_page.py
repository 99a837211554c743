"""The console page in headless Chromium, for the browser tests: open it (only the
server's host loads), read the terminal's text from xterm's own buffer, wait for a
pattern (bounded), focus the terminal, sign in through the real form.

The page draws the terminal on a canvas (xterm.js), so :data:`KEEP_TERMINAL` (an init
script) keeps a reference to the page's terminal and offers ``window.__bvScreen()``.
Every wait is explicit and bounded; no sleep stands in for an assertion.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest

sync_api = pytest.importorskip("playwright.sync_api", reason="the Playwright driver is missing")
PlaywrightTimeout = sync_api.TimeoutError

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.sync_api import Browser, BrowserContext, Page, Playwright

LAUNCH_ARGS = [
    *("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"),
    *("--disable-background-networking", "--disable-component-update", "--disable-sync"),
]
WAIT_MS = 30_000
VIEWPORT = {"width": 1400, "height": 900}

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


def launch(pw: Playwright, chromium: Path) -> Browser:
    """Headless Chromium from ``chromium`` (the fixture's path)."""
    return pw.chromium.launch(
        executable_path=str(chromium), args=LAUNCH_ARGS, headless=True, timeout=WAIT_MS
    )


def screen_text(page: Page) -> str:
    """The terminal's visible text, one line per row."""
    return str(page.evaluate("window.__bvScreen()"))


def wait_for_screen(page: Page, pattern: str, timeout_ms: int = WAIT_MS) -> str:
    """Wait (bounded) until the terminal's text matches ``pattern``; returns that text."""
    try:
        page.wait_for_function(
            "p => new RegExp(p).test(window.__bvScreen())", arg=pattern, timeout=timeout_ms
        )
    except PlaywrightTimeout:
        raise AssertionError(
            f"the page never matched {pattern!r}; it shows:\n{screen_text(page)}"
        ) from None
    return screen_text(page)


def open_console(target: Browser | BrowserContext, url: str) -> Page:
    """A page on ``url`` (in a browser, or one of its contexts: its own cookies) that
    keeps a handle on its terminal; only ``url``'s host loads."""
    page = target.new_page()
    page.set_viewport_size(VIEWPORT)  # type: ignore[arg-type]
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


def focus_terminal(page: Page) -> None:
    """Keys reach the console through xterm's hidden textarea: focus it, and check."""
    page.locator(".xterm-helper-textarea").focus(timeout=WAIT_MS)
    page.wait_for_function(
        "() => document.activeElement?.classList.contains('xterm-helper-textarea')",
        timeout=WAIT_MS,
    )


def sign_in(page: Page, url: str, name: str, password: str, *, wait: bool = True) -> None:
    """On the sign-in form (where the page sent a stranger): sign in, back at ``url``
    (``wait=False``: the form sent, not waited for)."""
    page.wait_for_url("**/login", timeout=WAIT_MS)
    page.fill("#name", name)
    page.fill("#password", password)
    page.click("button[type=submit]")
    if wait:
        page.wait_for_url(url, timeout=WAIT_MS)
