package verifyd

import (
	"regexp"
	"strings"
	"time"
)

// Operator is a person who may sign in to the review console and decide
// verifications the engine could not. Decisions name the operator's
// username in the verification's history.
type Operator struct {
	Username string `json:"username"`
	// PasswordHash is the argon2id hash in PHC string form
	// ($argon2id$v=19$m=…,t=…,p=…$salt$hash); never the password.
	PasswordHash string     `json:"-"`
	CreatedAt    time.Time  `json:"created_at"`
	DisabledAt   *time.Time `json:"disabled_at,omitempty"`
}

// Active reports whether the operator may sign in.
func (o Operator) Active() bool { return o.DisabledAt == nil }

var usernamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._@-]{0,63}$`)

// NormalizeUsername returns the canonical form of an operator username
// (lowercase, surrounding space removed), or "" when it is not acceptable:
// 1 to 64 characters among a-z, 0-9, ".", "_", "@" and "-", starting with a
// letter or digit.
func NormalizeUsername(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if !usernamePattern.MatchString(s) {
		return ""
	}
	return s
}

// WebSession is a signed-in browser session. Only a hash of the session
// token is stored, so a copy of the database does not let anyone sign in.
// Realm separates kinds of sessions ("console" for operators; end users of
// the age flow later) and Subject names who signed in within the realm.
type WebSession struct {
	TokenHash  []byte
	Realm      string
	Subject    string
	CreatedAt  time.Time
	LastSeenAt time.Time
	// ExpiresAt is the absolute end of the session, whatever its activity.
	ExpiresAt time.Time
}
