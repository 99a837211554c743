"""Influence and corroboration of one lesson, from counts the store aggregates.

*Influence* is what the lesson made happen: drafts it pushed toward (``supported``),
warned against (``opposed``), drafts the curator withdrew or rewrote because of it
(``suppressed``: held-back drafts where it opposed), and decisions it *swayed* (the
verdict agreed with its stance).  *Corroboration* is who else confirmed it: decisions
that graded it ``fire``/``strong`` (not undone), and how many distinct identities those
came from — deciders, runtimes that reported, proposal sources.  A lesson that steers
many drafts on the word of one identity is the shape of a planted one.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Influence:
    """Counts behind one lesson's influence (all zero: never used)."""

    reflection_id: str
    recalled: int = 0
    """Times a logged recall returned it (logged, never graded)."""
    supported: int = 0
    """Proposals that consulted it with stance ``support``."""
    opposed: int = 0
    """Proposals that consulted it with stance ``oppose``."""
    suppressed: int = 0
    """Held-back drafts it opposed (withdrawn or rewritten after recall)."""
    swayed: int = 0
    """Standing decisions whose verdict agreed with its stance."""
    rejected_support: int = 0
    """Standing rejections of proposals it supported."""
    accepted_support: int = 0
    """Standing acceptances of proposals it supported."""
    accepted_oppose: int = 0
    """Standing acceptances of proposals it opposed (decided against it)."""
    rejected_oppose: int = 0
    """Standing rejections of proposals it opposed."""
    decided: int = 0
    """Standing decisions on proposals that consulted it."""
    confirmations: int = 0
    """Standing decisions that graded it fire or strong."""
    contradictions: int = 0
    """Standing decisions that graded it miss."""
    deciders: int = 0
    """Distinct deciders among the confirmations."""
    runtimes: int = 0
    """Distinct runtimes among the confirmations."""
    sources: int = 0
    """Distinct proposal sources (cli, mcp, outcome…) among the confirmations."""
    upheld: int = 0
    """Standing "rightly held back" verdicts on drafts it opposed."""
    overruled: int = 0
    """Standing "should have been proposed" verdicts on drafts it opposed."""
    attested: int = 0
    """Standing decisions or outcomes that wrote it (0: nothing brainview recorded wrote
    it — an import, a skill's own write, or a planted one)."""

    @property
    def drafts(self) -> int:
        """Drafts it shaped: supported, opposed or suppressed."""
        return self.supported + self.opposed + self.suppressed

    @property
    def score(self) -> int:
        """Drafts shaped plus decisions swayed: the sort key of ``--sort influence``."""
        return self.drafts + self.swayed

    @property
    def identities(self) -> int:
        """Distinct identities that confirmed it (the widest of deciders / runtimes)."""
        return max(self.deciders, self.runtimes)

    def to_json(self) -> dict[str, object]:
        """Plain JSON, the derived figures included."""
        return asdict(self) | {
            "drafts": self.drafts,
            "score": self.score,
            "identities": self.identities,
        }


def merge(base: Influence, **more: int) -> Influence:
    """``base`` with the given counts added (the store reads them from several tables)."""
    values = asdict(base)
    for key, n in more.items():
        values[key] = int(values.get(key, 0)) + int(n or 0)
    return Influence(**values)


def summary(inf: Influence) -> str:
    """One plain line: what it shaped and who confirmed it."""
    return (
        f"influence {inf.score}: supported {inf.supported} · opposed {inf.opposed} · "
        f"suppressed {inf.suppressed} · swayed {inf.swayed} of {inf.decided} decided · "
        f"recalled {inf.recalled}; corroboration {inf.confirmations} confirmation(s) from "
        f"{inf.deciders} decider(s), {inf.runtimes} runtime(s), {inf.sources} source(s)"
        + (
            f"; held back {inf.suppressed}: upheld {inf.upheld}, overruled {inf.overruled}"
            if inf.upheld or inf.overruled
            else ""
        )
    )
