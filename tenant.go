package verifyd

import (
	"encoding/base32"
	"fmt"
	"io"
	"strings"
	"time"
)

// Interface is one of the two APIs of SPEC.md.
type Interface string

// The two interfaces.
const (
	InterfaceIdentity Interface = "identity"
	InterfaceAge      Interface = "age"
)

// Interfaces lists every interface in a stable order.
var Interfaces = []Interface{InterfaceIdentity, InterfaceAge}

// Valid reports whether i is a known interface.
func (i Interface) Valid() bool { return i == InterfaceIdentity || i == InterfaceAge }

// keyTag is the short interface marker in key prefixes.
func (i Interface) keyTag() string {
	if i == InterfaceAge {
		return "age"
	}
	return "idv"
}

// Environment separates real traffic from integrators' tests. Keys, redirect
// lists and verifications never cross environments.
type Environment string

// The two environments.
const (
	EnvProduction Environment = "production"
	EnvSandbox    Environment = "sandbox"
)

// Environments lists every environment in a stable order.
var Environments = []Environment{EnvProduction, EnvSandbox}

// Valid reports whether e is a known environment.
func (e Environment) Valid() bool { return e == EnvProduction || e == EnvSandbox }

// keyTag follows the convention integrators know from payment APIs: "live"
// keys move real outcomes, "test" keys only sandbox ones.
func (e Environment) keyTag() string {
	if e == EnvSandbox {
		return "test"
	}
	return "live"
}

// Business is an integrator: the tenant that owns keys, redirect lists and
// verifications.
type Business struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
	// DirectLiveness is what happens to the business's production direct
	// submissions (SPEC B2), which carry one selfie and no live capture.
	DirectLiveness DirectLiveness `json:"direct_liveness"`
	// RetentionDays is how many days after its decision an identity-API
	// verification keeps its images and identifying evidence (0: they are
	// deleted at once). Unfinished verifications lose them when they
	// expire. See RetentionDue.
	RetentionDays int `json:"retention_days"`
	// SandboxOnly marks a business that signed itself up on the
	// dashboard (the public test workspace): it has sandbox keys only,
	// and production keys cannot be created for it.
	SandboxOnly bool `json:"sandbox_only,omitempty"`
}

// DefaultRetentionDays is the retention of a business that chose none.
const DefaultRetentionDays = 30

// MaxRetentionDays bounds the retention setting (ten years).
const MaxRetentionDays = 3650

// ValidRetentionDays reports whether days is an acceptable retention.
func ValidRetentionDays(days int) bool { return days >= 0 && days <= MaxRetentionDays }

// DirectLiveness is a business's choice for direct submissions: a single
// selfie sent by the integrator proves nothing about a live person in
// front of a camera (docs/engine.md "Liveness").
type DirectLiveness string

const (
	// DirectLivenessAuto decides direct submissions automatically, with
	// the passive liveness and replay checks only. The default: the
	// integrator captured the selfie and answers for how.
	DirectLivenessAuto DirectLiveness = "auto"
	// DirectLivenessReview sends every production direct submission that
	// the checks would approve to a person instead.
	DirectLivenessReview DirectLiveness = "review"
)

// Valid reports whether p is a known policy.
func (p DirectLiveness) Valid() bool { return p == DirectLivenessAuto || p == DirectLivenessReview }

// Credential is one API key and its secret for one interface and
// environment of a business. Several may be active at once so integrators can
// rotate without downtime.
type Credential struct {
	BusinessID  string      `json:"business_id"`
	Interface   Interface   `json:"interface"`
	Environment Environment `json:"environment"`
	APIKey      string      `json:"api_key"`
	// APISecret is the plaintext secret. Stores never hold it; they keep
	// SealedSecret instead.
	APISecret string     `json:"api_secret,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
}

// Active reports whether the credential may authenticate requests.
func (c Credential) Active() bool { return c.RevokedAt == nil }

// StoredCredential is a credential as persisted: the secret encrypted at rest.
type StoredCredential struct {
	Credential
	SealedSecret []byte
}

// tokenEncoding is lowercase, unpadded base32: URL-safe, unambiguous when read
// aloud or copied from a terminal, and free of ':' so it fits HTTP Basic.
var tokenEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// RandomToken returns n random bytes from r encoded as lowercase base32.
func RandomToken(r io.Reader, n int) (string, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("read random: %w", err)
	}
	return tokenEncoding.EncodeToString(b), nil
}

// NewCredential generates a key and secret for the given interface and
// environment. Keys look like vdk_live_idv_…, secrets like vds_live_…, so an
// operator can tell at a glance where a leaked value belongs.
func NewCredential(r io.Reader, businessID string, i Interface, e Environment, now time.Time) (Credential, error) {
	key, err := RandomToken(r, 15)
	if err != nil {
		return Credential{}, err
	}
	secret, err := RandomToken(r, 32)
	if err != nil {
		return Credential{}, err
	}
	return Credential{
		BusinessID:  businessID,
		Interface:   i,
		Environment: e,
		APIKey:      fmt.Sprintf("vdk_%s_%s_%s", e.keyTag(), i.keyTag(), key),
		APISecret:   fmt.Sprintf("vds_%s_%s", e.keyTag(), secret),
		CreatedAt:   now,
	}, nil
}

// NewBusinessID returns a new business identifier.
func NewBusinessID(r io.Reader) (string, error) {
	t, err := RandomToken(r, 10)
	if err != nil {
		return "", err
	}
	return "biz_" + t, nil
}

// ValidBusinessName reports whether name is acceptable for a business.
func ValidBusinessName(name string) bool {
	n := strings.TrimSpace(name)
	return n != "" && len(n) <= 200
}
