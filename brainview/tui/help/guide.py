"""The one-minute guide, written with binding ids so it shows the keys in effect.

``{triage.accept}`` in :data:`GUIDE` becomes the key that binding answers to *now*
(``a``, or ``y`` after ``"triage.accept" = "y"`` in ``[keys]``), so the guide cannot
drift from the bindings or from a remap.  Every id is checked by the tests.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from brainview.core.vocabulary import legend_lines

GUIDE = """\
## brainview in one minute

**Triage** (`{go.triage}`): the queue on the left; the proposal, what it would change
(row by row, exactly what accepting writes), the user neurons it names and the
reflections the curator consulted on the right. `{triage.accept}` accepts,
`{triage.reject}` rejects (with a reason), `{triage.dismiss}` dismisses a stale one,
`{triage.skip}` skips, `{triage.undo}` undoes. Mark with `{triage.mark}`, range-mark with
`{triage.range}`, then `{triage.accept}`/`{triage.reject}` decide all marked at once (one
transaction). `{triage.filter}` filters, `{triage.sort}` sorts,
`{triage.copy_id}`/`{triage.copy_json}` copy the id/JSON, `{triage.export}` exports the
view. The title says whether accepting applies the change to the user brain or only
records it (`record_only` in the config).

Each decision grades the **consulted** reflections: a reflection that supported an
accepted proposal (or opposed a rejected one) is graded *strong*; one that supported
a rejected proposal (or opposed an accepted one) *miss*. Reflections the curator
retrieved but did not consult are listed apart and not graded. A rejection also writes
a new reflection with your reason.

**Recall** (`{triage.recall}` on Triage, `{communities.recall}` on Communities): the
lessons recall ranks for the highlighted proposal's draft, or for words and `n-…` user
neurons you type, each with why (lexical match, spreading from the neurons, R now, what
overturned it) and a suggested stance; `enter` opens one. Browsing is not logged and
grades nothing.

**Communities** (`{go.communities}`): clusters of lessons with size, skills, mean R, █/▁
(strong/miss) record and policy; `enter` on a member opens the **reflection view** (text with
references resolved, FSRS card, stability history, forgetting forecast, audit trail).
`{communities.fading}` switches to the fading list (`{fading.rescue}` rescue,
`{fading.let_go}` let go). On a reflection, a member, a fading row or (from the clusters
table) a whole community: `{lifecycle.invalidate}` invalidate (reason + blast radius),
`{lifecycle.challenge}` challenge, `{lifecycle.reinstate}` reinstate, `{lifecycle.undo}`
undo the last lifecycle batch.

**Consolidate** (`{communities.consolidate}` on Communities, or `ctrl+p` →
*reflections: consolidate*): plans prunes of faded lessons (SWS), decay of weak links
between stale ones (SHY) and one draft policy per community (REM); `{consolidate.queue}`
queues each as a proposal and opens triage on them. A policy shows its members,
counter-examples and the diff against the previous one; `{triage.edit_policy}` edits its
text, `{policy.accept}` accepts with your text. `ctrl+p` → *reflections: pause writing*
stops rejections from writing new lessons (the triage title says so).

**Overview** (`{go.overview}`): both brains' vital signs, retention (R now per decile)
and the agent metrics (acceptance, seconds per decision, policies, reflections at risk).

**Moving around**: `{app.pane_left}`/`{app.pane_right}` move between a screen's panes
(where a screen does not use the key itself), `tab` too. `{app.quit_ask}` quits (it asks
first while a change is still being written; in a text box it types or copies instead);
`{app.quit}` quits at once. `ctrl+p` opens the command palette (type a reflection id or
words to jump to it); `{help.close}` closes this help.

Marks never rely on colour alone; each glyph has one meaning:

{legend}
"""

LEGEND_MD = "\n".join(f"- {line}" for line in legend_lines())
"""The legend as a Markdown list, generated from the one table of marks."""

_SLOT = re.compile(r"\{([a-z_]+\.[a-z_]+)\}")

KEY_NAMES = {
    "question_mark": "?",
    "slash": "/",
    "escape": "esc",
    "full_stop": ".",
    "minus": "-",
    "plus": "+",
}
"""Textual key names as people write them."""


def key_label(key: str) -> str:
    """A key as people write it (``ctrl+z``, ``?``, ``/``)."""
    key = key.strip()
    return KEY_NAMES.get(key, key)


def keys_label(keys: str) -> str:
    """A comma-separated key list as people write it (``u, ctrl+z``)."""
    return ", ".join(key_label(k) for k in keys.split(",") if k.strip())


def slots(text: str = GUIDE) -> set[str]:
    """The binding ids the guide names."""
    return set(_SLOT.findall(text))


def render_guide(effective: Mapping[str, str], text: str = GUIDE) -> str:
    """The guide with each ``{binding.id}`` replaced by its first effective key
    (``effective``: id → keys in force); an unknown id is shown as itself."""

    def key_of(match: re.Match[str]) -> str:
        keys = effective.get(match.group(1))
        return key_label(keys.split(",")[0]) if keys else match.group(1)

    return _SLOT.sub(key_of, text).replace("{legend}", LEGEND_MD)
