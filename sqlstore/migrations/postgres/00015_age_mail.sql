-- +goose Up
-- E-mail for age accounts (docs/age.md): when the address was confirmed,
-- and the single-use tokens sent by e-mail (confirm the address, reset the
-- password, a one-time login code, delete the account). Only the SHA-256
-- of a token is stored (hex).
ALTER TABLE age_accounts ADD COLUMN email_confirmed_at BIGINT;
CREATE TABLE age_mail_tokens (
    token_hash  TEXT PRIMARY KEY,
    environment TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    account_id  TEXT NOT NULL REFERENCES age_accounts (id),
    purpose     TEXT NOT NULL CHECK (purpose IN ('confirm', 'reset', 'code', 'delete')),
    email       TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    used_at     BIGINT
);
CREATE INDEX age_mail_tokens_account ON age_mail_tokens (account_id);
CREATE INDEX age_mail_tokens_expiry ON age_mail_tokens (expires_at);

-- +goose Down
DROP TABLE age_mail_tokens;
ALTER TABLE age_accounts DROP COLUMN email_confirmed_at;
