-- +goose Up
-- A business's policy for production direct submissions (SPEC B2), which
-- carry one selfie and no live capture: 'auto' decides them with the
-- passive checks, 'review' sends those the checks would approve to a
-- person (docs/engine.md "Liveness").
ALTER TABLE businesses ADD COLUMN direct_liveness TEXT NOT NULL DEFAULT 'auto'
    CHECK (direct_liveness IN ('auto', 'review'));

-- +goose Down
ALTER TABLE businesses DROP COLUMN direct_liveness;
