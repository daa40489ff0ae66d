-- +goose Up
-- Sandbox verifications can have their clock advanced; production ones never.
ALTER TABLE verifications ADD COLUMN clock_offset_us INTEGER NOT NULL DEFAULT 0;

-- The immutable history of every status change.
CREATE TABLE verification_events (
    verification_id TEXT NOT NULL REFERENCES verifications (id) ON DELETE CASCADE,
    seq             INTEGER NOT NULL,
    at              INTEGER NOT NULL,
    from_status     TEXT NOT NULL,
    to_status       TEXT NOT NULL,
    reason          TEXT NOT NULL DEFAULT '',
    cause           TEXT NOT NULL,
    actor           TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (verification_id, seq)
);

-- +goose StatementBegin
CREATE TRIGGER verification_events_immutable BEFORE UPDATE ON verification_events
BEGIN
    SELECT RAISE(ABORT, 'verification_events is append-only');
END;
-- +goose StatementEnd

-- One row per status-change notification; payload is the exact body sent.
CREATE TABLE webhook_events (
    id              TEXT PRIMARY KEY,
    verification_id TEXT NOT NULL REFERENCES verifications (id) ON DELETE CASCADE,
    -- seq of the status change in verification_events: the delivery order.
    seq             INTEGER NOT NULL,
    business_id     TEXT NOT NULL,
    api_key         TEXT NOT NULL,
    url             TEXT NOT NULL,
    payload         BLOB NOT NULL,
    state           TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL,
    delivered_at    INTEGER,
    last_error      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX webhook_events_verification ON webhook_events (verification_id, seq);
CREATE INDEX webhook_events_state ON webhook_events (state, created_at);

CREATE TABLE webhook_attempts (
    event_id    TEXT NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    attempt     INTEGER NOT NULL,
    at          INTEGER NOT NULL,
    status_code INTEGER NOT NULL DEFAULT 0,
    latency_us  INTEGER NOT NULL,
    error       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (event_id, attempt)
);

-- +goose Down
DROP TABLE webhook_attempts;
DROP TABLE webhook_events;
DROP TRIGGER verification_events_immutable;
DROP TABLE verification_events;
ALTER TABLE verifications DROP COLUMN clock_offset_us;
