-- +goose Up
-- The OAuth side of the age interface (SPEC A1–A3, docs/age.md). Codes and
-- access tokens are bearer secrets: only their SHA-256 is stored.

-- Authorize requests waiting for the user to finish the hosted flow.
CREATE TABLE age_auth_requests (
    id                    TEXT PRIMARY KEY,
    business_id           TEXT NOT NULL REFERENCES businesses (id),
    environment           TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    client_id             TEXT NOT NULL REFERENCES credentials (api_key),
    redirect_uri          TEXT NOT NULL,
    state                 TEXT NOT NULL,
    user_id               TEXT NOT NULL,
    country               TEXT NOT NULL,
    code_challenge        TEXT NOT NULL,
    code_challenge_method TEXT NOT NULL,
    created_at            BIGINT NOT NULL,
    expires_at            BIGINT NOT NULL,
    completed_at          BIGINT
);
CREATE INDEX age_auth_requests_expires ON age_auth_requests (expires_at);

-- One code per completed request, bound to its client and redirect_uri and
-- carrying the flow's outcome. used_at is set by the one conditional UPDATE
-- that exchanges it.
CREATE TABLE age_codes (
    code_hash             BYTEA PRIMARY KEY,
    request_id            TEXT NOT NULL UNIQUE REFERENCES age_auth_requests (id),
    business_id           TEXT NOT NULL REFERENCES businesses (id),
    environment           TEXT NOT NULL,
    client_id             TEXT NOT NULL,
    redirect_uri          TEXT NOT NULL,
    code_challenge        TEXT NOT NULL,
    code_challenge_method TEXT NOT NULL,
    age_verified          BIGINT NOT NULL CHECK (age_verified IN (0, 1)),
    verification_id       TEXT NOT NULL,
    method                TEXT NOT NULL,
    created_at            BIGINT NOT NULL,
    expires_at            BIGINT NOT NULL,
    used_at               BIGINT
);
CREATE INDEX age_codes_expires ON age_codes (expires_at);

-- Access tokens, each issued for one code (a replayed code revokes them).
CREATE TABLE age_tokens (
    token_hash      BYTEA PRIMARY KEY,
    code_hash       BYTEA NOT NULL REFERENCES age_codes (code_hash),
    business_id     TEXT NOT NULL REFERENCES businesses (id),
    environment     TEXT NOT NULL,
    client_id       TEXT NOT NULL,
    age_verified    BIGINT NOT NULL CHECK (age_verified IN (0, 1)),
    verification_id TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    revoked_at      BIGINT
);
CREATE INDEX age_tokens_code ON age_tokens (code_hash);
CREATE INDEX age_tokens_expires ON age_tokens (expires_at);

-- +goose Down
DROP TABLE age_tokens;
DROP TABLE age_codes;
DROP TABLE age_auth_requests;
