"""The HTML of ``brainview serve``'s sign-in: the login page and the console's bar,
and the headers every response carries.

Plain HTML, no script, every interpolated value escaped (:func:`html.escape`).  Pages
are never cached and may not be framed (``Content-Security-Policy``).

Every response of the server (pages, scripts, JSON, refusals, the websocket's
handshake) says it may not be framed (``X-Frame-Options: DENY`` and ``frame-ancestors
'none'``), that its type is not to be guessed (``nosniff``) and sends no referrer.  A
page holding a sign-in or sign-out form keeps ``Referrer-Policy: same-origin``: under
``no-referrer`` browsers send ``Origin: null`` with a form's POST, and the CSRF check
needs the real origin.  The console page's CSP has only ``frame-ancestors``: the
terminal runs textual-serve's own scripts.
"""

from __future__ import annotations

import html
import math

from aiohttp import web

NO_STORE = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}
FRAME_ANCESTORS = "frame-ancestors 'none'"
EVERY_RESPONSE = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
FORM_PAGE = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": f"{FRAME_ANCESTORS}; form-action 'self'; base-uri 'none'",
    "Referrer-Policy": "same-origin",
}
"""The console page with its sign-out form (textual-serve's scripts, so only these)."""


async def security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """``on_response_prepare``: the headers every response carries (a page's own
    stricter ones are kept)."""
    for name, value in EVERY_RESPONSE.items():
        response.headers.setdefault(name, value)
    policy = response.headers.get("Content-Security-Policy")
    if policy is None:
        response.headers["Content-Security-Policy"] = FRAME_ANCESTORS
    elif "frame-ancestors" not in policy:
        response.headers["Content-Security-Policy"] = f"{policy}; {FRAME_ANCESTORS}"


_STYLE = (
    "body{background:#0c181f;color:#eee;font-family:menlo,monospace;display:flex;"
    "justify-content:center;margin-top:12vh}form{background:#12232d;padding:2em;"
    "min-width:22em}label{display:block;margin:.8em 0 .2em}input{width:100%;"
    "padding:.4em;box-sizing:border-box}button{margin-top:1.2em;padding:.5em 2em}"
    ".msg{color:#f88;margin-top:1em}"
)


def login_page(csrf: str, *, message: str = "", name: str = "", status: int = 200) -> web.Response:
    """The sign-in form (POST ``/login``) with its CSRF token; ``message``: why the
    last try failed."""
    note = f"<p class='msg' role='alert'>{html.escape(message)}</p>" if message else ""
    body = (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width'>"
        f"<title>brainview: sign in</title><style>{_STYLE}</style></head><body>"
        "<form method='post' action='/login' autocomplete='on'>"
        "<h1>brainview</h1><p>Sign in to the console.</p>"
        f"<input type='hidden' name='csrf' value='{html.escape(csrf, quote=True)}'>"
        "<label for='name'>Name</label>"
        f"<input id='name' name='name' autocomplete='username' required maxlength='64' "
        f"value='{html.escape(name, quote=True)}' autofocus>"
        "<label for='password'>Password</label>"
        "<input id='password' name='password' type='password' "
        "autocomplete='current-password' required maxlength='1024'>"
        f"<button type='submit'>Sign in</button>{note}</form></body></html>"
    )
    return web.Response(
        status=status, text=body, content_type="text/html", charset="utf-8", headers=NO_STORE
    )


def plain_page(title: str, message: str, *, status: int) -> web.Response:
    """A short HTML notice (refusals that are not the login form)."""
    body = (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>brainview: {html.escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body><div><h1>{html.escape(title)}</h1><p>{html.escape(message)}</p>"
        "<p><a href='/login' style='color:#8cf'>Sign in</a></p></div></body></html>"
    )
    return web.Response(
        status=status, text=body, content_type="text/html", charset="utf-8", headers=NO_STORE
    )


def console_bar(name: str, role: str, csrf: str | None) -> str:
    """The small box on the console page: who is signed in, and a sign-out button
    (a form POSTing ``/logout`` with the session's CSRF token).  Without a session (a
    bearer token) there is nothing to sign out of."""
    who = f"{html.escape(name)} ({html.escape(role)})"
    out = ""
    if csrf is not None:
        out = (
            "<form method='post' action='/logout' style='display:inline;margin:0 0 0 .6em'>"
            f"<input type='hidden' name='csrf' value='{html.escape(csrf, quote=True)}'>"
            "<button type='submit' style='font:inherit;padding:0 .5em;cursor:pointer'>"
            "Sign out</button></form>"
        )
    return (
        "<div id='brainview-who' style='position:fixed;top:0;right:0;z-index:30;"
        "background:#12232dcc;color:#ddd;font:12px menlo,monospace;padding:2px 6px'>"
        f"signed in as <b>{who}</b>{out}</div>"
    )


def see_other(location: str) -> web.Response:
    """A 303 to one of our own paths (never with a query: nothing secret in URLs)."""
    return web.Response(status=303, headers={"Location": location, "Cache-Control": "no-store"})


def too_many(wait: float, *, csrf: str = "", name: str = "", plain: bool = False):  # noqa: ANN202
    seconds = max(1, math.ceil(wait))
    message = f"too many failed sign-ins: try again in {seconds} s"
    if plain:
        response = plain_page("too many tries", message, status=429)
    else:
        response = login_page(csrf, message=message, name=name, status=429)
    response.headers["Retry-After"] = str(seconds)
    return response
