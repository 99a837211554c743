"""The Spikuit 0.7 ``circuit.db`` schema (after its migrations) and ``config.toml``, for
the brains brainview creates: ``init-agent``, ``learnings import --init`` and demo brains.

Real ``spkt`` re-runs its ``CREATE … IF NOT EXISTS`` and ``ALTER TABLE`` migrations
on open; the latter fail harmlessly because these columns already exist.
"""

from __future__ import annotations

from pathlib import Path

SPIKUIT_07_DDL = """
CREATE TABLE IF NOT EXISTS neuron (
    id TEXT PRIMARY KEY, content TEXT NOT NULL, type TEXT, domain TEXT, source TEXT,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    community_id INTEGER, retired_at TEXT
);
CREATE TABLE IF NOT EXISTS synapse (
    pre TEXT NOT NULL REFERENCES neuron(id), post TEXT NOT NULL REFERENCES neuron(id),
    type TEXT NOT NULL, weight REAL NOT NULL DEFAULT 0.5,
    co_fires INTEGER NOT NULL DEFAULT 0, last_co_fire TEXT,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    confidence TEXT DEFAULT 'extracted', confidence_score REAL DEFAULT 1.0,
    retired_at TEXT,
    PRIMARY KEY (pre, post, type)
);
CREATE TABLE IF NOT EXISTS fsrs_state (
    neuron_id TEXT PRIMARY KEY REFERENCES neuron(id), card_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS spike (
    id INTEGER PRIMARY KEY AUTOINCREMENT, neuron_id TEXT NOT NULL REFERENCES neuron(id),
    grade INTEGER NOT NULL, fired_at TEXT NOT NULL, session_id TEXT, notes TEXT
);
CREATE TABLE IF NOT EXISTS retrieve_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT, query TEXT NOT NULL, neuron_ids TEXT NOT NULL,
    retrieved_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_neuron_type ON neuron(type);
CREATE INDEX IF NOT EXISTS idx_neuron_domain ON neuron(domain);
CREATE INDEX IF NOT EXISTS idx_synapse_pre ON synapse(pre);
CREATE INDEX IF NOT EXISTS idx_synapse_post ON synapse(post);
CREATE INDEX IF NOT EXISTS idx_spike_neuron ON spike(neuron_id);
CREATE INDEX IF NOT EXISTS idx_spike_session ON spike(session_id);
CREATE TABLE IF NOT EXISTS retrieval_boost (
    neuron_id TEXT PRIMARY KEY REFERENCES neuron(id), boost REAL NOT NULL DEFAULT 0.0,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS quiz_item (
    id TEXT PRIMARY KEY, question TEXT NOT NULL, answer TEXT NOT NULL,
    hints TEXT NOT NULL DEFAULT '[]', grading_criteria TEXT NOT NULL DEFAULT '',
    scaffold_level TEXT, created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS quiz_item_neuron (
    quiz_item_id TEXT NOT NULL REFERENCES quiz_item(id) ON DELETE CASCADE,
    neuron_id TEXT NOT NULL REFERENCES neuron(id) ON DELETE CASCADE,
    role TEXT NOT NULL, PRIMARY KEY (quiz_item_id, neuron_id)
);
CREATE INDEX IF NOT EXISTS idx_quiz_item_neuron_nid ON quiz_item_neuron(neuron_id);
CREATE TABLE IF NOT EXISTS source (
    id TEXT PRIMARY KEY, url TEXT, title TEXT, author TEXT, section TEXT, excerpt TEXT,
    storage_uri TEXT, content_hash TEXT, notes TEXT, accessed_at TEXT,
    created_at TEXT NOT NULL, filterable TEXT, searchable TEXT, fetched_at TEXT,
    http_etag TEXT, http_last_modified TEXT, status TEXT DEFAULT 'active'
);
CREATE TABLE IF NOT EXISTS neuron_source (
    neuron_id TEXT NOT NULL REFERENCES neuron(id) ON DELETE CASCADE,
    source_id TEXT NOT NULL REFERENCES source(id) ON DELETE CASCADE,
    PRIMARY KEY (neuron_id, source_id)
);
CREATE INDEX IF NOT EXISTS idx_source_url ON source(url);
CREATE INDEX IF NOT EXISTS idx_neuron_source_sid ON neuron_source(source_id);
CREATE TABLE IF NOT EXISTS changeset (
    id TEXT PRIMARY KEY, tag TEXT, actor_id TEXT NOT NULL, actor_kind TEXT NOT NULL,
    started_at TEXT NOT NULL, committed_at TEXT, status TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_changeset_committed_at ON changeset(committed_at);
CREATE TABLE IF NOT EXISTS event (
    id TEXT PRIMARY KEY, changeset_id TEXT NOT NULL REFERENCES changeset(id),
    seq INTEGER NOT NULL, op TEXT NOT NULL, target_kind TEXT NOT NULL,
    target_id TEXT NOT NULL, before_json TEXT, after_json TEXT, at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_event_changeset ON event(changeset_id, seq);
CREATE INDEX IF NOT EXISTS idx_event_target ON event(target_kind, target_id);
CREATE INDEX IF NOT EXISTS idx_event_at ON event(at);
CREATE TABLE IF NOT EXISTS neuron_predecessor (
    child_id TEXT NOT NULL REFERENCES neuron(id), parent_id TEXT NOT NULL REFERENCES neuron(id),
    at TEXT NOT NULL, PRIMARY KEY (child_id, parent_id)
);
CREATE INDEX IF NOT EXISTS idx_neuron_predecessor_parent ON neuron_predecessor(parent_id);
CREATE INDEX IF NOT EXISTS idx_neuron_retired_at ON neuron(retired_at);
CREATE INDEX IF NOT EXISTS idx_synapse_retired_at ON synapse(retired_at);
"""

CONFIG_TOML = '[brain]\nname = "{name}"\n'


def write_config(spikuit_dir: Path, name: str) -> None:
    """``config.toml`` as ``spkt init`` writes it (no embedder), created atomically."""
    from brainview.store.safe_files import atomic_write

    spikuit_dir.mkdir(parents=True, exist_ok=True)
    with atomic_write(spikuit_dir / "config.toml", "config", force_flag=None) as fh:
        fh.write(CONFIG_TOML.format(name=name))
