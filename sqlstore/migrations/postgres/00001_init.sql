-- +goose Up
-- Times are Unix microseconds stored as integers in both dialects, so the Go code
-- converts them in one place and ordering is exact.
CREATE TABLE businesses (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE credentials (
    api_key       TEXT PRIMARY KEY,
    business_id   TEXT NOT NULL REFERENCES businesses (id),
    interface     TEXT NOT NULL CHECK (interface IN ('identity', 'age')),
    environment   TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    sealed_secret BYTEA NOT NULL,
    created_at    BIGINT NOT NULL,
    revoked_at    BIGINT
);
CREATE INDEX credentials_business ON credentials (business_id, created_at);

CREATE TABLE redirect_urls (
    business_id TEXT NOT NULL REFERENCES businesses (id),
    interface   TEXT NOT NULL,
    environment TEXT NOT NULL,
    url         TEXT NOT NULL,
    position    BIGINT NOT NULL,
    PRIMARY KEY (business_id, interface, environment, url)
);

CREATE TABLE verifications (
    id                  TEXT PRIMARY KEY,
    business_id         TEXT NOT NULL REFERENCES businesses (id),
    environment         TEXT NOT NULL,
    api_key             TEXT NOT NULL REFERENCES credentials (api_key),
    customer_id         TEXT NOT NULL,
    customer_email      TEXT NOT NULL,
    customer_phone      TEXT NOT NULL DEFAULT '',
    redirect_uri        TEXT NOT NULL DEFAULT '',
    webhook             TEXT NOT NULL,
    flow                TEXT NOT NULL,
    status              TEXT NOT NULL,
    reason              TEXT NOT NULL DEFAULT '',
    document_type       TEXT NOT NULL DEFAULT '',
    document_country    TEXT NOT NULL DEFAULT '',
    hosted_token_hash   BYTEA UNIQUE,
    sealed_hosted_token BYTEA,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL,
    expires_at          BIGINT NOT NULL
);
CREATE INDEX verifications_customer ON verifications (business_id, customer_id);

CREATE TABLE verification_images (
    verification_id TEXT NOT NULL REFERENCES verifications (id) ON DELETE CASCADE,
    kind            TEXT NOT NULL,
    format          TEXT NOT NULL,
    width           BIGINT NOT NULL,
    height          BIGINT NOT NULL,
    sha256          BYTEA NOT NULL,
    sealed          BYTEA NOT NULL,
    PRIMARY KEY (verification_id, kind)
);
CREATE INDEX verification_images_sha256 ON verification_images (sha256);

CREATE TABLE settings (
    name  TEXT PRIMARY KEY,
    value BYTEA NOT NULL
);

-- +goose Down
DROP TABLE settings;
DROP TABLE verification_images;
DROP TABLE verifications;
DROP TABLE redirect_urls;
DROP TABLE credentials;
DROP TABLE businesses;
