"""Community labels and numbers as a person reads them (pure core), and the skills
cell of the communities list."""

from __future__ import annotations

from brainview.core.clustering import terms
from brainview.core.community_label import central, label, shown_number, skeleton
from brainview.tui.communities.cells import fit_widths, skills_text


def test_the_label_is_the_most_typical_members_first_line_with_references_folded() -> None:
    texts = [
        "Proposed merging [user:n-a] and [user:n-b]. User rejected: keywords overlap.",
        "Proposed merging [user:n-c] and [user:n-d]. User rejected: keywords overlap, "
        "purposes differ.",
        "Proposed merging [user:n-e] and [user:n-f]. User rejected: purposes differ.",
        "Quizzing [user:n-g] too early lowered recall.",
    ]
    assert central([terms(t) for t in texts]) == 1
    assert label(texts) == (
        "Proposed merging ⟦…⟧ and ⟦…⟧. User rejected: keywords overlap, purposes differ."
    )
    assert label([]) == "" and central([]) == 0


def test_skeleton_is_one_clean_line() -> None:
    assert skeleton("# Title [user:n-1]\n\nbody") == "Title ⟦…⟧"
    assert skeleton("a   b\tc") == "a b c"
    assert len(skeleton("word " * 100, limit=40)) <= 40


def test_numbers_count_from_one_and_isolated_have_none() -> None:
    assert [shown_number(n) for n in (0, 1, 11)] == [1, 2, 12]
    assert shown_number(-1) is None


def test_skills_read_as_names_and_counts() -> None:
    skills = {"curator": 8, "qabot": 3, "tutor": 2}
    assert skills_text(skills, 30).plain == "curator 8, qabot 3, tutor 2"
    assert skills_text(skills, 20).plain == "curator 8 +2 more"
    assert skills_text({"curator": 10, "qabot": 2, "tutor": 1}, 17).plain == "curator 10 +2"
    assert skills_text({}, 17).plain == "—"


def test_the_skills_column_shares_the_room_left() -> None:
    columns = (("#", "n", 3), ("label", "l", 0), ("skills", "s", -1))
    narrow, wide = fit_widths(columns, 80), fit_widths(columns, 200)
    assert 17 <= narrow[2] < wide[2] == 30
    assert narrow[1] >= 8 and wide[1] > narrow[1]


def test_at_80_columns_a_community_label_keeps_its_words() -> None:
    """Issue 32: labels were cut to 16 cells at 80×24 (the skills column took 17)."""
    from brainview.tui.communities.cells import CLUSTER_COLUMNS

    widths = fit_widths(CLUSTER_COLUMNS, 80)
    assert widths[1] >= 20 and widths[3] >= 13
    assert fit_widths(CLUSTER_COLUMNS, 120)[3] >= 17  # wide tables unchanged
    assert skills_text({"curator": 11, "qabot": 2, "tutor": 2}, 11).plain == "curator +2"
