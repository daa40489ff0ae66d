-- +goose Up
-- The hosted age-verification flow (docs/age.md): end users' accounts and
-- their proofs of age. Accounts are per environment and shared by every
-- integrator of it; password_hash is an argon2id PHC string.
CREATE TABLE age_accounts (
    id            TEXT PRIMARY KEY,
    environment   TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    email         TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    UNIQUE (environment, email)
);

-- One row per attempt to prove one's age and its result. Only the result is
-- kept; the document method's images and evidence stay (sealed) with its
-- identity verification. account_id is NULL for the sandbox shortcut.
-- request_id names the authorize request the proof was started in; it is
-- not a foreign key because finished requests are purged.
CREATE TABLE age_proofs (
    id                       TEXT PRIMARY KEY,
    environment              TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    account_id               TEXT REFERENCES age_accounts (id),
    method                   TEXT NOT NULL,
    provider                 TEXT NOT NULL,
    result                   TEXT NOT NULL CHECK (result IN ('pending', 'adult', 'minor', 'failed')),
    identity_verification_id TEXT REFERENCES verifications (id),
    business_id              TEXT NOT NULL REFERENCES businesses (id),
    request_id               TEXT NOT NULL,
    country                  TEXT NOT NULL,
    created_at               INTEGER NOT NULL,
    decided_at               INTEGER
);
CREATE INDEX age_proofs_account ON age_proofs (account_id, created_at);

-- +goose Down
DROP TABLE age_proofs;
DROP TABLE age_accounts;
