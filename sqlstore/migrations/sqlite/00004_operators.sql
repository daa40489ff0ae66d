-- +goose Up
-- Review-console operators. password_hash is an argon2id PHC string.
CREATE TABLE operators (
    username      TEXT PRIMARY KEY,
    password_hash TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    disabled_at   INTEGER
);

-- Browser sessions (webauth). Only the SHA-256 of the token is stored.
-- realm separates kinds of sessions ('console' for operators).
CREATE TABLE web_sessions (
    token_hash   BLOB PRIMARY KEY,
    realm        TEXT NOT NULL,
    subject      TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
);
CREATE INDEX web_sessions_subject ON web_sessions (realm, subject);
CREATE INDEX web_sessions_expires ON web_sessions (expires_at);

-- +goose Down
DROP TABLE web_sessions;
DROP TABLE operators;
