-- +goose Up
-- Review-console operators. password_hash is an argon2id PHC string.
CREATE TABLE operators (
    username      TEXT PRIMARY KEY,
    password_hash TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    disabled_at   BIGINT
);

-- Browser sessions (webauth). Only the SHA-256 of the token is stored.
-- realm separates kinds of sessions ('console' for operators).
CREATE TABLE web_sessions (
    token_hash   BYTEA PRIMARY KEY,
    realm        TEXT NOT NULL,
    subject      TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL
);
CREATE INDEX web_sessions_subject ON web_sessions (realm, subject);
CREATE INDEX web_sessions_expires ON web_sessions (expires_at);

-- +goose Down
DROP TABLE web_sessions;
DROP TABLE operators;
