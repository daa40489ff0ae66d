package verifyd

import (
	"context"
	"time"
)

// Branding is what a business shows its customers on the hosted pages
// (the identity page and the age pages): the name it is known by, a logo,
// an accent colour, where to ask for help and its privacy policy. Package
// branding validates every field before a store sees it; a business that
// set nothing has the zero Branding and the pages fall back to its name.
type Branding struct {
	BusinessID string `json:"business_id"`
	// DisplayName is the name shown to customers ("" shows Business.Name).
	DisplayName string `json:"display_name"`
	// AccentColour is "#rrggbb" in lower case, or "" for the default.
	AccentColour string `json:"accent_colour"`
	SupportEmail string `json:"support_email"`
	// PrivacyURL is the business's privacy policy (https only).
	PrivacyURL string `json:"privacy_url"`
	// Logo describes the stored logo without its bytes (LogoStore.Logo
	// has them); nil when the business has none.
	Logo      *Logo     `json:"logo,omitempty"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Logo is a business's logo as verifyd re-encoded it (never the uploaded
// bytes): PNG or JPEG, at most branding.MaxLogoSide pixels on a side.
type Logo struct {
	Format string `json:"format"` // "png" or "jpeg"
	Width  int    `json:"width"`
	Height int    `json:"height"`
	// SHA256 of Bytes: the logo's ETag and cache-busting version.
	SHA256 []byte `json:"-"`
	// Bytes is empty in Branding and filled by BrandingStore.Logo.
	Bytes []byte `json:"-"`
}

// ContentType returns the logo's media type.
func (l Logo) ContentType() string {
	if l.Format == "jpeg" {
		return "image/jpeg"
	}
	return "image/png"
}

// BrandingStore persists businesses' branding.
type BrandingStore interface {
	// Branding returns a business's branding without the logo's bytes:
	// the zero Branding (with BusinessID set) for a business that set
	// none, ErrNotFound for an unknown business.
	Branding(ctx context.Context, businessID string) (Branding, error)
	// SetBranding stores the text fields of b (display name, colour,
	// support address, privacy URL, UpdatedAt) and applies logo, in one
	// transaction; ErrNotFound for an unknown business.
	SetBranding(ctx context.Context, b Branding, logo LogoChange) error
	// Logo returns a business's logo with its bytes, or ErrNotFound when
	// it has none.
	Logo(ctx context.Context, businessID string) (Logo, error)
}

// LogoChange is what a change of branding does to the logo: keep it (the
// zero value), replace it (Set) or remove it.
type LogoChange struct {
	Set    *Logo
	Remove bool
}

// VerificationQuery selects a business's identity-API verifications for the
// dashboard. The age flow's internal verifications are never listed.
type VerificationQuery struct {
	// BusinessID is required: a query never crosses businesses.
	BusinessID string
	// Environment, Status and Reason keep only matching verifications when
	// not empty.
	Environment Environment
	Status      Status
	Reason      Reason
	// CreatedFrom and CreatedBefore bound the creation time when not zero
	// (From included, Before excluded).
	CreatedFrom   time.Time
	CreatedBefore time.Time
	// Search keeps the verification whose id, or the verifications whose
	// customer id, equals it exactly (ids are not searched by prefix: they
	// are random and a prefix search would only help enumeration).
	Search string
	// After continues a listing: only verifications strictly older than
	// it in the listing's order (created_at, then id, both descending).
	After *VerificationCursor
	// Limit caps the result (at most MaxListLimit; 0 means DefaultListLimit).
	Limit int
}

// VerificationCursor is where a page of a verification listing ended.
type VerificationCursor struct {
	CreatedAt time.Time
	ID        string
}

// Listing limits of the dashboard's queries.
const (
	DefaultListLimit = 50
	MaxListLimit     = 500
)

// ListLimit returns the number of rows a query with limit n reads.
func ListLimit(n int) int {
	switch {
	case n <= 0:
		return DefaultListLimit
	case n > MaxListLimit:
		return MaxListLimit
	}
	return n
}

// WebhookTest is a test event sent from the dashboard to check a receiver:
// one signed POST, made at once and never retried, recorded with its
// outcome. It is not a status change and has no verification.
type WebhookTest struct {
	ID          string        `json:"id"`
	BusinessID  string        `json:"business_id"`
	Environment Environment   `json:"environment"`
	APIKey      string        `json:"api_key"`
	URL         string        `json:"url"`
	Payload     []byte        `json:"-"`
	At          time.Time     `json:"at"`
	StatusCode  int           `json:"status_code,omitempty"`
	Latency     time.Duration `json:"latency_ns"`
	Error       string        `json:"error,omitempty"`
	// Actor names who sent it (a dashboard user).
	Actor string `json:"actor,omitempty"`
}

// Delivered reports whether the receiver answered 2xx.
func (w WebhookTest) Delivered() bool {
	return w.Error == "" && w.StatusCode >= 200 && w.StatusCode < 300
}

// WebhookTestStore persists test events.
type WebhookTestStore interface {
	// RecordWebhookTest stores a test event; an existing id is an
	// EConflict error.
	RecordWebhookTest(ctx context.Context, w WebhookTest) error
	// WebhookTests lists a business's test events, newest first, at most
	// ListLimit(limit).
	WebhookTests(ctx context.Context, businessID string, limit int) ([]WebhookTest, error)
}

// The audited actions of the dashboard's data pages.
const (
	AuditBrandingSet     = "branding.set"
	AuditWebhookTest     = "webhook.test"
	AuditConsentDeclined = "verification.consent_declined"
)
