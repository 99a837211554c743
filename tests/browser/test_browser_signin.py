"""Signing in to ``brainview serve`` in a real browser (headless Chromium, as the
triage test drives it): the page sends a stranger to the sign-in form, the form signs
ada in (a same-origin POST with its CSRF token, a ``SameSite=Strict`` cookie that
survives the redirect), her console starts as her, and "Sign out" ends the session and
the console.  Skips when there is no Chromium or Playwright driver."""

from __future__ import annotations

from pathlib import Path

from console_page import WAIT_MS, launch, open_console, sync_api, wait_for_screen
from serving import start_serve
from test_serve_bounds import wait_for

from brainview.services.team.accounts import Accounts, default_path

PASSWORD = "correct horse battery"


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().decode()
    return dict(item.split("=", 1) for item in raw.split("\0") if "=" in item)


def test_sign_in_console_as_that_person_and_sign_out(chromium: Path, demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    Accounts(default_path(root / ".spikuit")).add("ada", "reviewer", PASSWORD, now="t0")
    served = start_serve(str(root), "--screen", "overview")
    try:
        with sync_api.sync_playwright() as pw:
            browser = launch(pw, chromium)
            try:
                page = open_console(browser, served.url)
                assert page.url.endswith("/login") and served.children() == set()
                page.fill("#name", "ada")
                page.fill("#password", "not her password")
                page.click("button[type=submit]")
                refused = page.locator(".msg").inner_text(timeout=WAIT_MS)
                page.fill("#password", PASSWORD)
                page.click("button[type=submit]")
                page.wait_for_url(served.url, timeout=WAIT_MS)
                wait_for_screen(page, "live neurons")
                who = page.inner_text("#brainview-who")
                (child,) = served.children()
                env = _environ(child)
                cookies = {c["name"]: c for c in page.context.cookies()}
                session = cookies["bv_session"]
                page.click("#brainview-who button")
                page.wait_for_url("**/login", timeout=WAIT_MS)
                wait_for("the console to end", lambda: served.children() == set())
                page.goto(served.url, timeout=WAIT_MS)
                back_at_login = page.url.endswith("/login")
            finally:
                browser.close()
    finally:
        code, out, err = served.stop()
    assert code == 0 and "Traceback" not in err, err
    assert refused == "wrong name or password"
    assert "signed in as ada (reviewer)" in who
    assert env["BRAINVIEW_AS"] == "ada" and env["BRAINVIEW_ROLE"] == "reviewer"
    assert session["httpOnly"] and session["sameSite"] == "Strict" and session["path"] == "/"
    assert back_at_login
    assert PASSWORD not in out + err and session["value"] not in out + err
