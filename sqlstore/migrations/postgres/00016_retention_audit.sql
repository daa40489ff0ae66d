-- +goose Up
-- Retention of the identity API's verifications (docs/api.md "Retention
-- and redaction"): images and identifying evidence are deleted this many
-- days after the decision; 0 deletes them at once.
ALTER TABLE businesses ADD COLUMN retention_days INTEGER NOT NULL DEFAULT 30
    CHECK (retention_days >= 0 AND retention_days <= 3650);

-- When an integrator redacted a verification (its images, evidence and the
-- customer's e-mail and phone were deleted), in Unix microseconds; NULL
-- while it is not redacted.
ALTER TABLE verifications ADD COLUMN redacted_at BIGINT;

-- The retention job looks for decided verifications not yet purged.
CREATE INDEX verifications_unpurged ON verifications (business_id) WHERE purged_at IS NULL;

-- Who did what and when (docs/operations.md "Audit log"). Entries are only
-- appended; actor_kind is operator (the command line or the console),
-- api_key, business_user or system.
CREATE TABLE audit_log (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          BIGINT NOT NULL,
    business_id TEXT NOT NULL DEFAULT '',
    actor_kind  TEXT NOT NULL,
    actor       TEXT NOT NULL,
    action      TEXT NOT NULL,
    subject     TEXT NOT NULL DEFAULT '',
    detail      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_at ON audit_log (at, id);
CREATE INDEX audit_log_business ON audit_log (business_id, at, id);

-- +goose Down
DROP TABLE audit_log;
DROP INDEX verifications_unpurged;
ALTER TABLE verifications DROP COLUMN redacted_at;
ALTER TABLE businesses DROP COLUMN retention_days;
