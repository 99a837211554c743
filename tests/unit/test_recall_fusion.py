"""The pure parts of recall's second round: the cited-neurons term, semantic scaling,
which parts found a hit, and Spikuit's embedder settings and document text."""

from __future__ import annotations

import math

import numpy as np
import pytest

from brainview.core import recall_rank
from brainview.core.embedding import EmbedConfig, document_text, parse_config, with_prefix
from brainview.core.fusion import cited_scores, found_by, scale_semantic, semantic_pool


def test_cited_term_weights_rare_neurons_and_counts_each_once() -> None:
    citing = {"r1": ["a", "b"], "r2": ["a"], "r3": ["a", "a"], "r4": ["b"]}
    got = cited_scores(citing, ["a", "b"], total=100)
    idf_a, idf_b = math.log(1 + 100 / 3), math.log(1 + 100 / 2)
    assert got["r1"] == pytest.approx(1.0)
    assert got["r2"] == pytest.approx(idf_a / (idf_a + idf_b)) == pytest.approx(got["r3"])
    assert got["r4"] == pytest.approx(idf_b / (idf_a + idf_b))
    assert got["r4"] > got["r2"]  # b is cited by fewer lessons: rarer, worth more
    assert cited_scores({}, ["a"], 10) == {} and cited_scores(citing, [], 10) == {}


def test_semantic_pool_skips_excluded_and_scales_between_floor_and_best() -> None:
    sims = np.array([0.1, 0.9, 0.5, 0.7, 0.3], np.float32)
    ids = ["a", "b", "c", "d", "e"]
    pool = semantic_pool(sims, ids, {"b"}, pool=3)
    assert list(pool) == ["d", "c", "e"]
    scaled = scale_semantic(pool)
    assert scaled == pytest.approx({"d": 1.0, "c": 0.5, "e": 0.0})
    assert scale_semantic({"x": 0.4}) == {"x": 1.0}
    assert scale_semantic({"x": -0.2}) == {"x": 0.0}
    assert semantic_pool(np.zeros(0, np.float32), [], set()) == {}


def test_found_by_names_each_part() -> None:
    assert found_by(lexical=0, semantic=0.4, cited=False, spread=0.2, seeded=True) == ["semantic"]
    assert found_by(lexical=1.0, semantic=0, cited=True, spread=0.5, seeded=True) == [
        "cited",
        "lexical",
    ]
    assert found_by(lexical=0, semantic=0, cited=False, spread=0.1, seeded=False) == ["spreading"]


def test_the_new_terms_keep_score_below_relevance() -> None:
    p = recall_rank.Parts(1.0, 0.5, 0.3, semantic=0.8, cited=1.0)
    s, _lex, _spr = recall_rank.score(p, 2.0, 1.0)
    rel = recall_rank.relevance(1.0, 0.5, 2.0, 1.0, semantic=0.8, cited=1.0)
    assert s <= rel
    assert rel == pytest.approx(
        recall_rank.W_LEX * 0.5 + recall_rank.W_SPREAD * 0.5
        + recall_rank.W_CITED * 1.0 + recall_rank.W_SEM * 0.8
    )  # fmt: skip


def test_config_reads_spikuits_keys_and_defaults() -> None:
    assert parse_config({}) is None
    assert parse_config({"embedder": {"provider": "none"}}) is None
    cfg = parse_config({"embedder": {"provider": "ollama", "dimension": 8}})
    assert cfg == EmbedConfig("ollama", "http://localhost:11434", "nomic-embed-text", 8)
    assert parse_config({"embedder": {"provider": "openai-compat", "dimension": 0}}) == (
        "embedder dimension must be a whole number between 1 and 8192"
    )
    assert parse_config({"embedder": {"provider": "x"}}) == "unknown embedder provider 'x'"
    assert isinstance(cfg, EmbedConfig)
    other = EmbedConfig("ollama", cfg.base_url, cfg.model, 8, prefix_style="nomic")
    assert cfg.key() != other.key()


CONTENTS = [
    "plain lesson [user:n-1] text",
    "---\nsection: Merging\nsource: x\n---\n\n# Title\nbody words\n",
    "---\nsection: 'quoted'\n---\nbody",
    "---\nnot closed",
    "--- dashes --- inside --- text",
    "---\nsection:\n---\n  body  ",
]


@pytest.mark.parametrize("content", CONTENTS)
def test_document_text_is_what_spikuit_embeds(content: str) -> None:
    from spikuit_core import Circuit, Neuron

    circuit = Circuit.__new__(Circuit)  # the method reads only the neuron
    neuron = Neuron(id="n-000000000001", content=content, type="reflection")
    assert document_text(content) == circuit._prepare_embed_text(neuron)


def test_prefixes_are_spikuits() -> None:
    from spikuit_core.embedder import EmbeddingType, OpenAICompatEmbedder

    for style in ("nomic", "cohere", "e5", "mxbai", "bge", "none", "other"):
        theirs = OpenAICompatEmbedder(prefix_style=style)
        for what, typ in (("query", EmbeddingType.QUERY), ("document", EmbeddingType.DOCUMENT)):
            assert with_prefix("t", style, what) == theirs.apply_prefix("t", typ)
