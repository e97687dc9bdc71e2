"""Numbered schema migrations. Append a new (number, description, sql) entry; never edit a shipped one.

`db.migrate` applies every entry whose number is above the version recorded in `schema_version`,
each inside the same transaction as the version row it writes.
"""
from __future__ import annotations

MIGRATION_1 = """
CREATE TABLE schema_version (
    version INTEGER PRIMARY KEY,
    applied_at TEXT NOT NULL
);

-- The failure bank. task_id + answer_key (the extracted answer, '' when none) identify a failure:
-- the same wrong answer to the same task again only bumps times_seen.
CREATE TABLE failures (
    id INTEGER PRIMARY KEY,
    task_id TEXT NOT NULL,
    family TEXT NOT NULL,
    level TEXT NOT NULL,
    seed INTEGER NOT NULL,
    prompt TEXT NOT NULL,
    response TEXT NOT NULL,
    expected TEXT NOT NULL,
    extracted TEXT,
    answer_key TEXT NOT NULL,
    verdict TEXT NOT NULL,
    mode TEXT NOT NULL,
    times_seen INTEGER NOT NULL DEFAULT 1,
    repaired INTEGER NOT NULL DEFAULT 0,
    repair_successes INTEGER NOT NULL DEFAULT 0,
    repair_attempts INTEGER NOT NULL DEFAULT 0,
    tags TEXT NOT NULL DEFAULT '[]',
    notes TEXT NOT NULL DEFAULT '',
    source TEXT NOT NULL,
    task TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_seen TEXT NOT NULL
);
CREATE UNIQUE INDEX failures_dedupe ON failures (task_id, answer_key);
CREATE INDEX failures_family ON failures (family, last_seen);
CREATE INDEX failures_family_level ON failures (family, level, last_seen, times_seen);  -- + failure_map()
CREATE INDEX failures_mode ON failures (mode, last_seen);
CREATE INDEX failures_source ON failures (source, last_seen);
CREATE INDEX failures_last_seen ON failures (last_seen);
CREATE INDEX failures_repair ON failures (repaired, times_seen DESC, last_seen DESC);

-- failures.tags (a JSON list) is the truth; failure_tags is an index over it kept by triggers.
CREATE TABLE failure_tags (
    tag TEXT NOT NULL,
    failure_id INTEGER NOT NULL REFERENCES failures (id) ON DELETE CASCADE,
    PRIMARY KEY (tag, failure_id)
) WITHOUT ROWID;
CREATE INDEX failure_tags_failure ON failure_tags (failure_id);
CREATE TRIGGER failures_tags_ai AFTER INSERT ON failures BEGIN
    INSERT OR IGNORE INTO failure_tags (tag, failure_id) SELECT value, new.id FROM json_each(new.tags);
END;
CREATE TRIGGER failures_tags_au AFTER UPDATE OF tags ON failures BEGIN
    DELETE FROM failure_tags WHERE failure_id = old.id;
    INSERT OR IGNORE INTO failure_tags (tag, failure_id) SELECT value, new.id FROM json_each(new.tags);
END;

CREATE VIRTUAL TABLE failures_fts USING fts5 (
    prompt, response, notes, tags, content = 'failures', content_rowid = 'id'
);
CREATE TRIGGER failures_fts_ai AFTER INSERT ON failures BEGIN
    INSERT INTO failures_fts (rowid, prompt, response, notes, tags)
    VALUES (new.id, new.prompt, new.response, new.notes, new.tags);
END;
CREATE TRIGGER failures_fts_ad AFTER DELETE ON failures BEGIN
    INSERT INTO failures_fts (failures_fts, rowid, prompt, response, notes, tags)
    VALUES ('delete', old.id, old.prompt, old.response, old.notes, old.tags);
END;
CREATE TRIGGER failures_fts_au AFTER UPDATE OF prompt, response, notes, tags ON failures BEGIN
    INSERT INTO failures_fts (failures_fts, rowid, prompt, response, notes, tags)
    VALUES ('delete', old.id, old.prompt, old.response, old.notes, old.tags);
    INSERT INTO failures_fts (rowid, prompt, response, notes, tags)
    VALUES (new.id, new.prompt, new.response, new.notes, new.tags);
END;

-- Episodes played per family x level, so the failure map can show a rate, not just a count.
CREATE TABLE attempts (
    family TEXT NOT NULL,
    level TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    correct INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (family, level)
);

CREATE TABLE curriculum_state (
    family TEXT PRIMARY KEY,
    level TEXT NOT NULL,
    outcomes TEXT NOT NULL DEFAULT '[]',
    pinned TEXT,
    updated_at TEXT NOT NULL
);
CREATE TABLE curriculum_config (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    config TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE curriculum_history (
    id INTEGER PRIMARY KEY,
    ts TEXT NOT NULL,
    family TEXT NOT NULL,
    level TEXT NOT NULL,
    accuracy REAL
);
CREATE INDEX curriculum_history_family_ts ON curriculum_history (family, ts);
CREATE TABLE pass_rates (
    task_id TEXT PRIMARY KEY,
    family TEXT NOT NULL,
    level TEXT NOT NULL,
    passes INTEGER NOT NULL,
    n INTEGER NOT NULL,
    rate REAL NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX pass_rates_family_level_rate ON pass_rates (family, level, rate);

CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    config TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    step INTEGER NOT NULL DEFAULT 0,
    total INTEGER,
    checkpoint TEXT,
    created_at TEXT NOT NULL,
    started_at TEXT,
    updated_at TEXT NOT NULL,
    finished_at TEXT
);
CREATE INDEX runs_status ON runs (status, id);
CREATE TABLE run_metrics (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    metrics TEXT NOT NULL,
    ts TEXT NOT NULL
);
CREATE INDEX run_metrics_run_step ON run_metrics (run_id, step);
CREATE TABLE run_evals (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    phase TEXT NOT NULL CHECK (phase IN ('before', 'after')),
    result TEXT NOT NULL,
    ts TEXT NOT NULL,
    PRIMARY KEY (run_id, phase)
);
"""

# The turns of the episode that produced a failure (Turn.to_dict each), for the detail view.
MIGRATION_2 = """
ALTER TABLE failures ADD COLUMN history TEXT NOT NULL DEFAULT '[]';
"""

# Challenger templates (accepted, with provenance and pass-rate history), rejected proposals with
# their reasons, the figures of each co-evolution round, and duel results (alice_app/challenger).
MIGRATION_4 = """
CREATE TABLE challenger_templates (
    template_id TEXT PRIMARY KEY,
    template TEXT NOT NULL,
    op TEXT NOT NULL,
    level TEXT NOT NULL,
    proposer TEXT NOT NULL,
    round INTEGER,
    run_id INTEGER,
    novelty REAL NOT NULL,
    passes INTEGER NOT NULL DEFAULT 0,
    n INTEGER NOT NULL DEFAULT 0,
    history TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX challenger_templates_level ON challenger_templates (level, created_at);
CREATE TABLE challenger_rejections (
    id INTEGER PRIMARY KEY,
    proposer TEXT NOT NULL,
    round INTEGER,
    run_id INTEGER,
    reason TEXT NOT NULL,
    detail TEXT NOT NULL,
    raw TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX challenger_rejections_reason ON challenger_rejections (reason, created_at);
CREATE TABLE challenger_rounds (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL,
    round INTEGER NOT NULL,
    figures TEXT NOT NULL,
    challenger_adapter TEXT,
    solver_adapter TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX challenger_rounds_run ON challenger_rounds (run_id, round);
CREATE TABLE duels (
    id INTEGER PRIMARY KEY,
    model_a TEXT NOT NULL,
    model_b TEXT NOT NULL,
    result TEXT NOT NULL,
    created_at TEXT NOT NULL
);
"""

MIGRATIONS: tuple[tuple[int, str, str], ...] = (
    (1, "failure bank, attempts, curriculum, pass rates, runs, metrics, evals", MIGRATION_1),
    (2, "failures keep the turns of the episode that produced them", MIGRATION_2),
    (4, "challenger templates, rejected proposals, co-evolution rounds, duels", MIGRATION_4),
)
