-- +goose Up
-- Sandbox verifications can have their clock advanced; production ones never.
ALTER TABLE verifications ADD COLUMN clock_offset_us BIGINT NOT NULL DEFAULT 0;

-- The immutable history of every status change.
CREATE TABLE verification_events (
    verification_id TEXT NOT NULL REFERENCES verifications (id) ON DELETE CASCADE,
    seq             BIGINT NOT NULL,
    at              BIGINT NOT NULL,
    from_status     TEXT NOT NULL,
    to_status       TEXT NOT NULL,
    reason          TEXT NOT NULL DEFAULT '',
    cause           TEXT NOT NULL,
    actor           TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (verification_id, seq)
);

-- +goose StatementBegin
CREATE FUNCTION verification_events_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'verification_events is append-only';
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER verification_events_immutable BEFORE UPDATE ON verification_events
    FOR EACH ROW EXECUTE FUNCTION verification_events_immutable();

-- One row per status-change notification; payload is the exact body sent.
CREATE TABLE webhook_events (
    id              TEXT PRIMARY KEY,
    verification_id TEXT NOT NULL REFERENCES verifications (id) ON DELETE CASCADE,
    -- seq of the status change in verification_events: the delivery order.
    seq             BIGINT NOT NULL,
    business_id     TEXT NOT NULL,
    api_key         TEXT NOT NULL,
    url             TEXT NOT NULL,
    payload         BYTEA NOT NULL,
    state           TEXT NOT NULL,
    attempts        BIGINT NOT NULL DEFAULT 0,
    created_at      BIGINT NOT NULL,
    delivered_at    BIGINT,
    last_error      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX webhook_events_verification ON webhook_events (verification_id, seq);
CREATE INDEX webhook_events_state ON webhook_events (state, created_at);

CREATE TABLE webhook_attempts (
    event_id    TEXT NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    attempt     BIGINT NOT NULL,
    at          BIGINT NOT NULL,
    status_code BIGINT NOT NULL DEFAULT 0,
    latency_us  BIGINT NOT NULL,
    error       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (event_id, attempt)
);

-- +goose Down
DROP TABLE webhook_attempts;
DROP TABLE webhook_events;
DROP TRIGGER verification_events_immutable ON verification_events;
DROP FUNCTION verification_events_immutable();
DROP TABLE verification_events;
ALTER TABLE verifications DROP COLUMN clock_offset_us;
