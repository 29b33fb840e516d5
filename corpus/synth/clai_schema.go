package synth

// claiDDL is clai's schema: the four workspace migrations' tables verbatim
// (specs/clai.md §1) and the two tables of the same database this
// generator fills, with the columns the spec lists. PROVIDER is replaced by
// provider_id or protocol_id.
const claiDDL = `
CREATE TABLE assistant_sessions (
    id            TEXT PRIMARY KEY,
    kind          TEXT NOT NULL,
    title         TEXT,
    context_json  TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);
CREATE TABLE assistant_messages (
    id                     TEXT PRIMARY KEY,
    session_id             TEXT NOT NULL REFERENCES assistant_sessions(id) ON DELETE CASCADE,
    role                   TEXT NOT NULL,
    content_json           TEXT NOT NULL,
    provider_metadata_json TEXT,
    created_at             INTEGER NOT NULL
);
CREATE INDEX idx_assistant_messages_session
    ON assistant_messages(session_id, created_at);
CREATE TABLE assistant_runs (
    id            TEXT PRIMARY KEY,
    session_id    TEXT NOT NULL REFERENCES assistant_sessions(id) ON DELETE CASCADE,
    status        TEXT NOT NULL,
    trigger       TEXT NOT NULL,
    connection_id TEXT,
    PROVIDER      TEXT NOT NULL,
    model_id      TEXT NOT NULL,
    usage_json    TEXT,
    error         TEXT,
    notices_json  TEXT,
    started_at    INTEGER NOT NULL,
    completed_at  INTEGER
);
CREATE TABLE assistant_tool_calls (
    id           TEXT PRIMARY KEY,
    run_id       TEXT REFERENCES assistant_runs(id) ON DELETE CASCADE,
    session_id   TEXT NOT NULL REFERENCES assistant_sessions(id) ON DELETE CASCADE,
    tool_name    TEXT NOT NULL,
    params_json  TEXT NOT NULL,
    status       TEXT NOT NULL,
    result_json  TEXT,
    error        TEXT,
    started_at   INTEGER NOT NULL,
    completed_at INTEGER
);
CREATE TABLE assistant_compactions (
    id                     TEXT PRIMARY KEY,
    session_id             TEXT NOT NULL REFERENCES assistant_sessions(id) ON DELETE CASCADE,
    trigger                TEXT NOT NULL CHECK (trigger IN ('"manual"', '"automatic"', '"error_recovery"')),
    strategy               TEXT NOT NULL CHECK (strategy IN ('"local_summary"', '"session_rotation_summary"')),
    status                 TEXT NOT NULL CHECK (status IN ('"running"', '"completed"', '"failed"')),
    source_from_message_id TEXT REFERENCES assistant_messages(id) ON DELETE SET NULL,
    source_to_message_id   TEXT REFERENCES assistant_messages(id) ON DELETE SET NULL,
    summary_message_id     TEXT REFERENCES assistant_messages(id) ON DELETE SET NULL,
    created_run_id         TEXT REFERENCES assistant_runs(id) ON DELETE SET NULL,
    PROVIDER               TEXT NOT NULL,
    model_id               TEXT NOT NULL,
    input_message_count    INTEGER NOT NULL DEFAULT 0,
    created_at             INTEGER NOT NULL,
    completed_at           INTEGER,
    error                  TEXT
);
CREATE INDEX idx_assistant_compactions_session_created
    ON assistant_compactions(session_id, created_at DESC);
CREATE INDEX idx_assistant_compactions_session_status
    ON assistant_compactions(session_id, status, created_at DESC);
CREATE TABLE assistant_session_links (
    child_session_id  TEXT PRIMARY KEY REFERENCES assistant_sessions(id) ON DELETE CASCADE,
    parent_session_id TEXT NOT NULL REFERENCES assistant_sessions(id) ON DELETE CASCADE,
    kind              TEXT NOT NULL CHECK (kind IN ('rotation')),
    created_at        INTEGER NOT NULL
);
CREATE INDEX idx_assistant_session_links_parent
    ON assistant_session_links(parent_session_id, created_at DESC);
`
