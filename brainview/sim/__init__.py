"""A simulated world in which to measure whether the reflection loop teaches.

``brainview simulate`` (:mod:`brainview.commands.simulate`) runs the arms of
:mod:`brainview.sim.arms` over seeds and writes ``docs/efficacy.md``.  The world
(:mod:`~brainview.sim.world`), the maintainer (:mod:`~brainview.sim.maintainer`) and the
curator (:mod:`~brainview.sim.curator`) are scripted; everything between them — intake,
recall, decisions, grades, STDP, lessons, consolidation, invalidation, metrics — is
brainview's real code.
"""
