-- +goose Up
-- Hosted-page submissions: how many the customer made (retries are limited),
-- and how many check runs existed when the latest arrived, so a run numbered
-- above it has processed that submission.
ALTER TABLE verifications ADD COLUMN hosted_submissions BIGINT NOT NULL DEFAULT 0;
ALTER TABLE verifications ADD COLUMN hosted_submitted_run BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE verifications DROP COLUMN hosted_submitted_run;
ALTER TABLE verifications DROP COLUMN hosted_submissions;
