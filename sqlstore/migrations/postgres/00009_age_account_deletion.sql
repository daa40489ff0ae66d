-- +goose Up
-- Account deletion (docs/age.md): the account a code was issued for, so
-- that deleting the account revokes the access tokens issued for its codes.
-- NULL for codes of no account (the sandbox shortcut, a person who went
-- back without logging in) and once the account is deleted. Never sent to
-- the integrator.
ALTER TABLE age_codes ADD COLUMN account_id TEXT REFERENCES age_accounts (id);
CREATE INDEX age_codes_account ON age_codes (account_id);

-- +goose Down
DROP INDEX age_codes_account;
ALTER TABLE age_codes DROP COLUMN account_id;
