-- +goose Up
-- The business dashboard (docs/dashboard.md). A business that signed
-- itself up is sandbox-only: it never gets production keys.
ALTER TABLE businesses ADD COLUMN sandbox_only INTEGER NOT NULL DEFAULT 0 CHECK (sandbox_only IN (0, 1));

-- People of a business who sign in to the dashboard. E-mail addresses are
-- unique across the installation, so sign-in needs no business. The TOTP
-- secret is sealed with the master key; totp_step is the last time step
-- whose code was used, so a code signs in once.
CREATE TABLE business_users (
    id            TEXT PRIMARY KEY,
    business_id   TEXT NOT NULL REFERENCES businesses (id),
    email         TEXT NOT NULL UNIQUE,
    name          TEXT NOT NULL,
    role          TEXT NOT NULL CHECK (role IN ('owner', 'developer', 'viewer')),
    password_hash TEXT NOT NULL,
    totp_sealed   BLOB NOT NULL,
    totp_step     INTEGER NOT NULL DEFAULT 0,
    created_at    INTEGER NOT NULL,
    disabled_at   INTEGER
);
CREATE INDEX business_users_business ON business_users (business_id, created_at);

-- Invitations to join a business; only the SHA-256 of the link's token is
-- stored.
CREATE TABLE business_invitations (
    token_hash  BLOB PRIMARY KEY,
    business_id TEXT NOT NULL REFERENCES businesses (id),
    email       TEXT NOT NULL,
    role        TEXT NOT NULL CHECK (role IN ('owner', 'developer', 'viewer')),
    actor_kind  TEXT NOT NULL,
    actor       TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    accepted_at INTEGER
);
CREATE INDEX business_invitations_business ON business_invitations (business_id, created_at);

-- Passkeys (WebAuthn) of business users: the credential as go-webauthn
-- records it (JSON), found by its id (base64url).
CREATE TABLE business_user_passkeys (
    credential_id TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES business_users (id),
    credential    TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    last_used_at  INTEGER
);
CREATE INDEX business_user_passkeys_user ON business_user_passkeys (user_id, created_at);

-- +goose Down
DROP TABLE business_user_passkeys;
DROP TABLE business_invitations;
DROP TABLE business_users;
ALTER TABLE businesses DROP COLUMN sandbox_only;
