"""Help: the keys that apply on the screen underneath, then a short guide."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Markdown, Static

GUIDE = """\
## brainview in one minute

**Triage** (`2`): the queue on the left; the proposal, what it would change (row by row,
exactly what accepting writes), the user neurons it names and the reflections the
curator consulted on the right. `a` accepts, `r` rejects (with a reason), `d` dismisses
a stale one, `s` skips, `u` undoes. Mark with `space`, range-mark with `v`, then `a`/`r`
decide all marked at once (one transaction). `/` filters, `o` sorts, `c`/`C` copy the
id/JSON, `e` exports the view. The title says whether accepting applies the change to
the user brain or only records it (`record_only` in the config).

Each decision grades the **consulted** reflections: a reflection that supported an
accepted proposal (or opposed a rejected one) is graded *strong*; one that supported
a rejected proposal (or opposed an accepted one) *miss*. Reflections the curator
retrieved but did not consult are listed apart and not graded. A rejection also writes
a new reflection with your reason.

**Recall** (`l` on Triage or Communities): the lessons recall ranks for the highlighted
proposal's draft, or for words and `n-…` user neurons you type, each with why (lexical
match, spreading from the neurons, R now, what overturned it) and a suggested stance;
`enter` opens one. Browsing is not logged and grades nothing.

**Communities** (`3`): clusters of lessons with size, skills, mean R, ✓/✗ record and
policy; `enter` on a member opens the **reflection view** (text with `[user:…]`
references resolved, FSRS card, stability history, forgetting forecast, audit trail).
`f` switches to the fading list (`K` rescue, `L` let go). On a reflection, a member,
a fading row or (from the clusters table) a whole community: `x` invalidate (reason +
blast radius), `c` challenge, `R` reinstate, `U` undo the last lifecycle batch.

**Consolidate** (`z` on Communities, or `ctrl+p` → *reflections: consolidate*): plans
prunes of faded lessons (SWS), decay of weak links between stale ones (SHY) and one
draft policy per community (REM); `enter` queues each as a proposal and opens triage on
them. A policy shows its members, counter-examples and the diff against the previous
one; `E` edits its text, `ctrl+s` accepts with your text. `ctrl+p` → *reflections:
pause writing* stops rejections from writing new lessons (the triage title says so).

**Overview** (`1`): both brains' vital signs, retention (R now per decile) and the
agent metrics (acceptance, seconds per decision, policies, reflections at risk).

Marks never rely on colour alone: ✓ accepted · ✗ rejected · ⚠ stale · ☣ suspect ·
⊘ invalidated. `ctrl+p` opens the command palette (type a reflection id or words to
jump to it); `ctrl+q` quits; `escape` closes this help.
"""


KEY_NAMES = {"question_mark": "?", "slash": "/", "space": "space", "escape": "esc"}


def _key_label(key: str) -> str:
    """A key as people write it (``ctrl+z``, ``?``, ``/``)."""
    key = key.strip()
    return KEY_NAMES.get(key, key)


class HelpScreen(ModalScreen[None]):
    """Effective keys for the screen below plus the guide.

    | Key | Action |
    |-----|--------|
    | `escape`, `f1`, `q` | Close |
    """

    BINDINGS = [Binding("escape,f1,q,question_mark", "close", "Close", id="help.close")]

    def __init__(self, below: Screen[object]) -> None:
        super().__init__()
        self.below = below

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static("Keys here", classes="pane-title")
            yield DataTable(id="help-keys", cursor_type="none", show_cursor=False)
            yield Markdown(GUIDE, id="help-guide")

    def on_mount(self) -> None:
        table = self.query_one("#help-keys", DataTable)
        table.add_columns("key", "action", "what it does")
        seen: set[str] = set()
        for node in (*self._focus_chain(), self.below, self.app):
            widget = node not in (self.below, self.app)
            for binding in node.BINDINGS:  # type: ignore[attr-defined]
                # A hidden twin shares its verb's id (brainview.tui.bindings): list it once.
                if not isinstance(binding, Binding) or (binding.id or binding.action) in seen:
                    continue
                if widget and not binding.id:  # a stock widget's own keys (Input, tables)
                    continue
                seen.add(binding.id or binding.action)
                remap = getattr(self.app, "config", None)
                raw = remap.keys.get(binding.id or "", binding.key) if remap else binding.key
                keys = ", ".join(_key_label(k) for k in raw.split(","))
                table.add_row(keys, binding.description or binding.action, binding.tooltip or "")

    def _focus_chain(self) -> list[object]:
        """The focused widget and its containers below the screen: a widget that owns
        bindings (the recall box) has its keys listed too."""
        chain: list[object] = []
        node = self.below.focused
        while node is not None and node is not self.below:
            chain.append(node)
            node = node.parent  # type: ignore[assignment]
        return chain

    def action_close(self) -> None:
        """Back to the screen below."""
        self.dismiss(None)
