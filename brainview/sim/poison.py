"""Poisoning: lessons written into the agent brain by an outside writer, and the
vigilant maintainer's answer through the blast radius.

**The attack.**  At the start of the poison week, ``share`` of the live lessons (at least
one) are added as new reflections, the way any process with write access to the agent
brain could (Spikuit's ``add_neuron`` shape: a neuron, a fresh card, ``relates_to``
links).  Each claims that one mistake family was *accepted*, in the curator's own words,
and links itself to the two newest genuine lessons of that family so that spreading
activation carries it to the drafts those lessons match.

**The defence.**  At the end of each week the vigilant maintainer (``drop``) compares the
week's acceptance with the better of the two weeks before; when it fell by
``vigilance_drop`` or more, it reads the lessons consulted in support of the week's
rejected proposals, takes
their blast radius (:func:`brainview.services.lifecycle.blast.radius`: the proposals they
influenced, the lessons they link to or co-fired with), reads those too, and invalidates
every one it recognises as poisoned in one batch (:func:`brainview.services.lifecycle.blast.apply`,
flagging the pending proposals they supported).  The watchful maintainer
(``support``) does the same every week in which a rejected proposal had leaned on a
supporting lesson, whatever the acceptance.
"""

from __future__ import annotations

import math
import uuid
from datetime import datetime

from brainview.services.lifecycle import CHALLENGED, LIVE, blast
from brainview.services.project import Project
from brainview.sim.maintainer import Maintainer
from brainview.sim.texts import POISON
from brainview.sim.world import World
from brainview.store.effects import EffectLog
from brainview.store.readmodel import counts
from brainview.store.writers import write_reflection

ACTOR = "sim maintainer"


def inject(project: Project, world: World, share: float, now: datetime) -> list[str]:
    """Write ``ceil(share × live lessons)`` poisoned lessons; returns their ids."""
    agent = project.require_agent()
    with agent.write() as conn:
        live = counts(conn, agent.era).types.get("reflection", 0)
        n = max(1, math.ceil(share * live))
        log = EffectLog(conn)
        families = sorted(POISON)
        made = []
        for k in range(n):
            family = families[(k + world.seed) % len(families)]
            genuine = [r for r, f in world.lessons.items() if f == family][-2:]
            rid = f"r-{uuid.uuid4().hex[:12]}"
            write_reflection(log, agent.era, rid, POISON[family], "curator", genuine, 0.5, now)
            made.append(rid)
    world.poisoned.update(made)
    return made


def investigate(
    project: Project,
    world: World,
    maintainer: Maintainer,
    supported_rejections: list[str],
    now: datetime,
) -> tuple[list[str], list[str]]:
    """Read the suspects and their blast radius; invalidate the poisoned ones.

    Returns ``(invalidated, read)``."""
    suspects = list(dict.fromkeys(supported_rejections))
    if not suspects:
        return [], []
    found = blast.radius(project, suspects)
    # an invalidated (or retired) neighbour was dealt with already: nothing to change
    near = [n.neuron_id for n in found.neighbours if n.state in (LIVE, CHALLENGED)]
    read = list(dict.fromkeys([*suspects, *near]))
    bad = [r for r in read if maintainer.recognises_poison(r, world, now)]
    if not bad:
        return [], read
    action = blast.BlastAction(
        "invalidate",
        tuple(bad),
        tuple(found.default_flags()),
        "claims a change the maintainer always rejects was accepted",
    )
    blast.apply(project, action, actor=ACTOR, now=now)
    return bad, read
