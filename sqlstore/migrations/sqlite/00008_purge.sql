-- +goose Up
-- Data minimisation (docs/age.md): when the images and identifying evidence
-- of a finished internal verification (the age flow's document method) were
-- deleted, in Unix microseconds; NULL while they are kept.
ALTER TABLE verifications ADD COLUMN purged_at INTEGER;

-- +goose Down
ALTER TABLE verifications DROP COLUMN purged_at;
