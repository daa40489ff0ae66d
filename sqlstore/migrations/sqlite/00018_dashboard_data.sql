-- +goose Up
-- A business's branding on the hosted pages (docs/dashboard-data.md): the
-- name shown to its customers, an accent colour (#rrggbb, checked for
-- contrast with white text), a support address, a privacy policy (https)
-- and a logo. The logo is stored re-encoded by verifyd (package branding),
-- never as uploaded, so no bytes of the original are ever served.
CREATE TABLE business_branding (
    business_id   TEXT PRIMARY KEY REFERENCES businesses (id),
    display_name  TEXT NOT NULL DEFAULT '',
    accent_colour TEXT NOT NULL DEFAULT '',
    support_email TEXT NOT NULL DEFAULT '',
    privacy_url   TEXT NOT NULL DEFAULT '',
    logo          BLOB,
    logo_format   TEXT NOT NULL DEFAULT '',
    logo_width    INTEGER NOT NULL DEFAULT 0,
    logo_height   INTEGER NOT NULL DEFAULT 0,
    logo_sha256   BLOB,
    updated_at    INTEGER NOT NULL
);

-- When the customer agreed, on the hosted page, to the processing of their
-- face (matching and liveness), in Unix microseconds; NULL before.
ALTER TABLE verifications ADD COLUMN consented_at INTEGER;

-- The dashboard lists a business's verifications newest first.
CREATE INDEX verifications_business_created ON verifications (business_id, created_at, id);
CREATE INDEX webhook_events_business ON webhook_events (business_id, created_at, id);

-- Test events sent from the dashboard: one signed POST each, made while the
-- person waits, recorded with its outcome. They are not status changes and
-- are never retried (docs/webhooks.md "Test events").
CREATE TABLE webhook_tests (
    id          TEXT PRIMARY KEY,
    business_id TEXT NOT NULL REFERENCES businesses (id),
    environment TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    api_key     TEXT NOT NULL,
    url         TEXT NOT NULL,
    payload     BLOB NOT NULL,
    at          INTEGER NOT NULL,
    status_code INTEGER NOT NULL DEFAULT 0,
    latency_us  INTEGER NOT NULL DEFAULT 0,
    error       TEXT NOT NULL DEFAULT '',
    actor       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX webhook_tests_business ON webhook_tests (business_id, at, id);

-- +goose Down
DROP TABLE webhook_tests;
DROP INDEX webhook_events_business;
DROP INDEX verifications_business_created;
ALTER TABLE verifications DROP COLUMN consented_at;
DROP TABLE business_branding;
