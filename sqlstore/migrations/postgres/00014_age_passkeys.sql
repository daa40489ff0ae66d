-- +goose Up
-- Passkeys (WebAuthn credentials) of age accounts (docs/age.md). An
-- account may have no password (password_hash ''): it logs in with a
-- passkey. credential_id is the credential's raw id, base64url without
-- padding; credential is the WebAuthn library's JSON record (public key,
-- signature counter, flags).
CREATE TABLE age_passkeys (
    environment   TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    credential_id TEXT NOT NULL,
    account_id    TEXT NOT NULL REFERENCES age_accounts (id),
    credential    TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    last_used_at  BIGINT,
    PRIMARY KEY (environment, credential_id)
);
CREATE INDEX age_passkeys_account ON age_passkeys (account_id);

-- +goose Down
DROP TABLE age_passkeys;
