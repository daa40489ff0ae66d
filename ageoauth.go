package verifyd

import "time"

// The OAuth side of the age interface (SPEC A1–A3) persists three records:
// the authorize request waiting for the hosted flow, the code issued when the
// flow finishes, and the access tokens issued for codes. Codes and tokens are
// bearer secrets, so only their SHA-256 is stored; the age package documents
// the protocol (docs/age.md).

// AgeAuthRequest is a validated authorize request (SPEC A1) waiting for the
// user to finish the hosted flow.
type AgeAuthRequest struct {
	ID          string
	BusinessID  string
	Environment Environment
	// ClientID is the API key given as client_id.
	ClientID    string
	RedirectURI string
	// State and UserID are "" when the request had none.
	State   string
	UserID  string
	Country string
	// CodeChallenge is the PKCE challenge ("" without PKCE);
	// CodeChallengeMethod is then "S256".
	CodeChallenge       string
	CodeChallengeMethod string
	CreatedAt           time.Time
	ExpiresAt           time.Time
	// CompletedAt is when the hosted flow finished and a code was issued.
	CompletedAt *time.Time
}

// AgeCode is an authorization code: issued once per authorize request when
// the hosted flow finishes, bound to the request's client and redirect_uri,
// and carrying the flow's outcome to the tokens issued for it.
type AgeCode struct {
	// Hash is the SHA-256 of the code.
	Hash                []byte
	RequestID           string
	BusinessID          string
	Environment         Environment
	ClientID            string
	RedirectURI         string
	CodeChallenge       string
	CodeChallengeMethod string
	// AgeVerified, VerificationID and Method are the hosted flow's outcome.
	AgeVerified    bool
	VerificationID string
	Method         string
	// AccountID is the hosted flow's signed-in account ("" when none), so
	// that deleting the account revokes what was issued for it. It is
	// never sent to the integrator.
	AccountID string
	CreatedAt time.Time
	ExpiresAt time.Time
	// UsedAt is when the code was exchanged for a token (nil while unused).
	UsedAt *time.Time
}

// AgeToken is an access token for the user details endpoint (SPEC A3).
type AgeToken struct {
	// Hash is the SHA-256 of the token; CodeHash that of the code it was
	// issued for.
	Hash           []byte
	CodeHash       []byte
	BusinessID     string
	Environment    Environment
	ClientID       string
	AgeVerified    bool
	VerificationID string
	CreatedAt      time.Time
	ExpiresAt      time.Time
	RevokedAt      *time.Time
}

// ErrCodeSpent is returned by AgeOAuthStore.RedeemAgeCode when no unused,
// unexpired code had the hash.
var ErrCodeSpent = &Error{Code: EConflict, Message: "the code is unknown, used or expired"}
