-- +goose Up
-- Consent per business (docs/age.md): a person agreed to share the result
-- of their age check with this business. Without a row the flow asks before
-- any code goes to the business; a "no" is not stored (asked again next
-- time). Deleted with the account, or when the person revokes it.
CREATE TABLE age_consents (
    account_id  TEXT NOT NULL REFERENCES age_accounts (id),
    business_id TEXT NOT NULL REFERENCES businesses (id),
    environment TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    granted_at  BIGINT NOT NULL,
    PRIMARY KEY (account_id, business_id)
);

-- +goose Down
DROP TABLE age_consents;
