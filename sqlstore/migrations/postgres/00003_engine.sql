-- +goose Up
-- review: '' (not in the queue), 'pending' (a person must decide), 'decided'.
ALTER TABLE verifications ADD COLUMN review TEXT NOT NULL DEFAULT '';
-- How many submissions were processed (the hosted flow allows retries).
ALTER TABLE verifications ADD COLUMN submissions BIGINT NOT NULL DEFAULT 0;
-- Keyed hash of the document's type, country and number, set when read; the
-- number itself is kept only in the sealed evidence.
ALTER TABLE verifications ADD COLUMN document_hash BYTEA;
CREATE INDEX verifications_document_hash ON verifications (business_id, document_hash);
CREATE INDEX verifications_review ON verifications (review, updated_at);

-- Every pipeline run with each check's evidence, sealed at rest.
CREATE TABLE verification_checks (
    verification_id TEXT NOT NULL REFERENCES verifications (id) ON DELETE CASCADE,
    run             BIGINT NOT NULL,
    at              BIGINT NOT NULL,
    outcome         TEXT NOT NULL,
    reason          TEXT NOT NULL DEFAULT '',
    sealed_results  BYTEA NOT NULL,
    PRIMARY KEY (verification_id, run)
);

-- +goose Down
DROP TABLE verification_checks;
DROP INDEX verifications_review;
DROP INDEX verifications_document_hash;
ALTER TABLE verifications DROP COLUMN document_hash;
ALTER TABLE verifications DROP COLUMN submissions;
ALTER TABLE verifications DROP COLUMN review;
