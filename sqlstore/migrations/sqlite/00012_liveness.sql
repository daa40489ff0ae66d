-- +goose Up
-- Active liveness challenges (issue 9, package liveness): drawn for a
-- verification's attempt, used once with the frames the page recorded.
-- The frames' digests stay after a new submission replaced the images, so
-- a frame replayed in a later attempt is recognised; they go with the
-- verification.
CREATE TABLE liveness_challenges (
    id         TEXT PRIMARY KEY,
    subject    TEXT NOT NULL REFERENCES verifications (id) ON DELETE CASCADE,
    attempt    INTEGER NOT NULL,
    steps      TEXT NOT NULL,
    issued_at  INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at    INTEGER,
    -- The step the person asked a manual check for ('' when none).
    manual_step TEXT NOT NULL DEFAULT ''
);
CREATE INDEX liveness_challenges_subject ON liveness_challenges (subject, attempt);

CREATE TABLE liveness_frames (
    challenge_id TEXT NOT NULL REFERENCES liveness_challenges (id) ON DELETE CASCADE,
    seq          INTEGER NOT NULL,
    at_ms        INTEGER NOT NULL,
    sha256       BLOB NOT NULL,
    PRIMARY KEY (challenge_id, seq)
);

-- +goose Down
DROP TABLE liveness_frames;
DROP TABLE liveness_challenges;
