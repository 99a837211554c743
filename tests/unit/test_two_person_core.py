"""The two-person rule and agreement maths (pure), against hand-computed values."""

from __future__ import annotations

import pytest

from brainview.core import two_person as tp
from brainview.core.agreement import Rated, cohen_kappa, krippendorff_alpha, summarize

ON = tp.Rules(enabled=True, prune_above=3)


def test_rule_of_names_each_class_and_is_off_when_disabled() -> None:
    assert tp.rule_of("summarize_community", {}, 0, ON) == "policy"
    assert tp.rule_of("learning_tier", {"tier_to": "GRADUATED"}, 0, ON) == "graduate"
    assert tp.rule_of("learning_tier", {"tier_to": "WARM"}, 0, ON) is None
    assert tp.rule_of("prune_reflection", {}, 3, ON) is None  # not above N
    assert tp.rule_of("prune_reflection", {}, 4, ON) == "prune"
    assert tp.rule_of("merge_neurons", {}, 0, ON) is None
    kinds = tp.Rules(enabled=True, rules=frozenset({"merge_neurons"}))
    assert tp.rule_of("merge_neurons", {}, 0, kinds) == "merge_neurons"
    assert tp.rule_of("summarize_community", {}, 0, kinds) is None
    assert tp.rule_of("summarize_community", {}, 0, tp.Rules()) is None
    assert tp.invalidation_rule(ON) and not tp.invalidation_rule(tp.Rules())


def test_prune_items_count_synapses_of_a_decay() -> None:
    decay = {"synapses": [{}, {}, {}]}
    items = [("decay_synapses", decay), ("prune_reflection", {}), ("note", {})]
    assert tp.prune_items(items) == 4


def test_step_holds_the_first_accept_and_applies_a_different_persons() -> None:
    assert tp.step([], "ada", "accept", two_person=True, sampled=False) == "hold"
    first = [tp.Vote("ada", "accept")]
    assert tp.step(first, "bob", "accept", two_person=True, sampled=False) == "final"
    with pytest.raises(ValueError, match="(?i)ada already accepted"):
        tp.step(first, " ADA ", "accept", two_person=True, sampled=False)
    # a reject is final at once; a dismissal sets it aside whoever voted
    assert tp.step([], "ada", "reject", two_person=True, sampled=False) == "final"
    assert tp.step(first, "bob", "dismiss", two_person=True, sampled=False) == "final"
    # one person suffices when the rule does not apply
    assert tp.step([], "ada", "accept", two_person=False, sampled=False) == "final"


def test_sampled_items_hold_any_first_verdict() -> None:
    assert tp.step([], "ada", "reject", two_person=False, sampled=True) == "hold"
    rejected = [tp.Vote("ada", "reject")]
    assert tp.step(rejected, "bob", "accept", two_person=False, sampled=True) == "final"
    # a two-person item needs two accepts: bob's accept after ada's reject is held
    assert tp.step(rejected, "bob", "accept", two_person=True, sampled=True) == "hold"


def test_sample_is_stable_and_near_its_rate() -> None:
    rules = tp.Rules(enabled=True, sample_rate=0.25, sample_seed=7)
    picked = [tp.in_sample(f"prop-{i}", rules) for i in range(4000)]
    assert picked == [tp.in_sample(f"prop-{i}", rules) for i in range(4000)]
    assert 800 < sum(picked) < 1200
    assert not tp.in_sample("prop-1", tp.Rules(enabled=True))


def test_invalidation_subject_is_the_set() -> None:
    assert tp.invalidation_subject(["b", "a", "a"]) == tp.invalidation_subject(["a", "b"])
    assert tp.invalidation_subject(["a"]) != tp.invalidation_subject(["a", "b"])


def test_cohen_kappa_by_hand() -> None:
    # 10 items: both accept 4, both reject 3, A accept/B reject 2, A reject/B accept 1.
    pairs = [("a", "a")] * 4 + [("r", "r")] * 3 + [("a", "r")] * 2 + [("r", "a")]
    # po = 0.7; A: a 6, r 4; B: a 5, r 5; pe = (6*5 + 4*5) / 100 = 0.5; κ = 0.2/0.5
    assert cohen_kappa(pairs) == pytest.approx(0.4)
    assert cohen_kappa([("a", "a"), ("r", "r")]) == pytest.approx(1.0)
    assert cohen_kappa([("a", "a")] * 3) is None  # no variation: undefined
    assert cohen_kappa([]) is None


def test_krippendorff_alpha_by_hand() -> None:
    # units (a,a) (a,a) (r,r) (a,r): coincidences a-a 4, r-r 2, a-r 1, r-a 1
    # n_a = 5, n_r = 3, n = 8; Do = 2; De = (5*3 + 3*5) / 7 = 30/7; α = 1 - 2*7/30
    units = [("a", "a"), ("a", "a"), ("r", "r"), ("a", "r")]
    assert krippendorff_alpha(units) == pytest.approx(1 - 14 / 30)
    # three raters on one unit, two on another, a lone label left out:
    # (a,a,r): a-a 1, a-r 1, r-a 1 (each pair / (m-1) = 1/2, counted both ways)
    # (r,r): r-r 2; totals a 2, r 3, n 5; Do = 2*0.5*... computed below
    three = [("a", "a", "r"), ("r", "r"), ("a",)]
    # coincidence o_aa = 2*(1/2) = 1, o_ar = o_ra = 2*(1/2) = 1, o_rr = 2
    # n_a = 2, n_r = 3, n = 5; Do = 2; De = (2*3 + 3*2) / 4 = 3; α = 1 - 2/3
    assert krippendorff_alpha(three) == pytest.approx(1 / 3)
    assert krippendorff_alpha([("a", "a")]) is None


def test_summarize_uses_kappa_for_two_people_and_alpha_for_more() -> None:
    two = [
        Rated("policy", ("ada", "accept"), ("bob", "accept")),
        Rated("policy", ("bob", "reject"), ("ada", "reject")),
        Rated("policy", ("ada", "accept"), ("bob", "reject")),
    ]
    out = summarize(two)
    kind = out["by_kind"]["policy"]  # type: ignore[index]
    assert kind["method"] == "cohen_kappa" and kind["items"] == 3 and kind["agreed"] == 2
    # oriented ada→bob: (a,a) (r,r) (a,r): po 2/3; ada a2 r1, bob a1 r2; pe 4/9; κ = 0.4
    assert kind["value"] == pytest.approx(0.4)
    more = [*two, Rated("prune_reflection", ("cy", "accept"), ("ada", "accept"))]
    overall = summarize(more)["overall"]
    assert overall["method"] == "krippendorff_alpha"  # type: ignore[index]
    assert set(summarize(more)["by_person"]) == {"ada", "bob", "cy"}  # type: ignore[arg-type]
    assert summarize(more)["by_person"]["cy"]["items"] == 1  # type: ignore[index]
