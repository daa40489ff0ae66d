// Package branding holds what a business shows its customers on the hosted
// pages: its branding (display name, logo, accent colour, support address,
// privacy policy), validated here before any store sees it, and the data
// protection notice built from it, which the identity page and the age
// pages show before a face is processed.
package branding

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/verifyd/verifyd"
)

// Store is what the service needs from the database.
type Store interface {
	Business(ctx context.Context, id string) (verifyd.Business, error)
	verifyd.BrandingStore
	verifyd.AuditStore
}

// Processor names the installation that processes customers' data for the
// businesses (the data processor; each business is the controller). The
// operator sets it (serve --operator-name, --operator-contact); the notice
// on the hosted pages names both.
type Processor struct {
	Name    string
	Contact string
}

// Service implements the branding use cases.
type Service struct {
	store     Store
	now       func() time.Time
	processor Processor
}

// New returns a Service. processor is named in every notice.
func New(store Store, now func() time.Time, processor Processor) *Service {
	return &Service{store: store, now: now, processor: processor}
}

// MaxDisplayName bounds the display name, in characters.
const MaxDisplayName = 100

// Input is a change of branding. Text fields replace the stored ones (""
// clears one); Logo, when not empty, replaces the logo, and RemoveLogo
// deletes it.
type Input struct {
	DisplayName  string
	AccentColour string
	SupportEmail string
	PrivacyURL   string
	Logo         []byte
	RemoveLogo   bool
}

// Problem is what is wrong with a branding field: Text in English, as the
// API and the CLI say it; Code and Arg name it for pages that say it in
// the reader's language (verifyd.FieldError.Code).
type Problem struct{ Code, Arg, Text string }

// Validate checks every field and returns the normalised branding text
// and the re-encoded logo (nil when Logo is empty), or the SPEC's 422 error
// listing each bad field.
func (in Input) Validate() (verifyd.Branding, *verifyd.Logo, error) {
	var p verifyd.Problems
	var b verifyd.Branding
	b.DisplayName = strings.TrimSpace(in.DisplayName)
	switch {
	case utf8.RuneCountInString(b.DisplayName) > MaxDisplayName:
		p.AddCode("display_name", "name_long", strconv.Itoa(MaxDisplayName), fmt.Sprintf("is longer than %d characters", MaxDisplayName))
	case !utf8.ValidString(b.DisplayName) || strings.IndexFunc(b.DisplayName, unicode.IsControl) >= 0:
		p.AddCode("display_name", "name_control", "", "must be text without control characters")
	}
	colour, problem := ParseAccentColour(in.AccentColour)
	if problem.Text != "" {
		p.AddCode("accent_colour", problem.Code, problem.Arg, problem.Text)
	}
	b.AccentColour = colour
	b.SupportEmail = strings.TrimSpace(in.SupportEmail)
	if b.SupportEmail != "" && !verifyd.ValidEmail(b.SupportEmail) {
		p.AddCode("support_email", "email", "", "must be an e-mail address")
	}
	b.PrivacyURL = strings.TrimSpace(in.PrivacyURL)
	if b.PrivacyURL != "" {
		if problem := (verifyd.URLRule{}).CheckURL(b.PrivacyURL); problem != "" {
			p.Add("privacy_url", problem)
		}
	}
	var logo *verifyd.Logo
	switch {
	case len(in.Logo) > 0 && in.RemoveLogo:
		p.AddCode("logo", "logo_both", "", "cannot be replaced and removed at once")
	case len(in.Logo) > 0:
		l, problem := CheckLogo(in.Logo)
		if problem.Text != "" {
			p.AddCode("logo", problem.Code, problem.Arg, problem.Text)
		} else {
			logo = &l
		}
	}
	return b, logo, p.Err()
}

// Get returns a business's branding (without the logo's bytes).
func (s *Service) Get(ctx context.Context, businessID string) (verifyd.Branding, error) {
	return s.store.Branding(ctx, businessID)
}

// Logo returns a business's logo with its bytes, or verifyd.ErrNotFound.
func (s *Service) Logo(ctx context.Context, businessID string) (verifyd.Logo, error) {
	return s.store.Logo(ctx, businessID)
}

// Set validates and stores a change of a business's branding (text and
// logo in one transaction), records it in the audit log with the actor of
// ctx, and returns the branding as stored.
func (s *Service) Set(ctx context.Context, businessID string, in Input) (verifyd.Branding, error) {
	b, logo, err := in.Validate()
	if err != nil {
		return verifyd.Branding{}, err
	}
	now := s.now().UTC()
	b.BusinessID, b.UpdatedAt = businessID, now
	// The audit log keeps no e-mail addresses (docs/dashboard.md), so the
	// entry tells only whether the support address changed, against the
	// branding read here (two changes at once may both say "changed").
	before, err := s.store.Branding(ctx, businessID)
	if err != nil {
		return verifyd.Branding{}, err
	}
	change := verifyd.LogoChange{Set: logo, Remove: in.RemoveLogo}
	if err := s.store.SetBranding(ctx, b, change); err != nil {
		return verifyd.Branding{}, err
	}
	supportEmail := "unchanged"
	switch {
	case b.SupportEmail == before.SupportEmail:
	case b.SupportEmail == "":
		supportEmail = "removed"
	default:
		supportEmail = "changed"
	}
	detail := fmt.Sprintf("display_name=%q accent_colour=%s support_email=%s privacy_url=%s",
		b.DisplayName, b.AccentColour, supportEmail, b.PrivacyURL)
	switch {
	case logo != nil:
		detail += fmt.Sprintf(" logo=%s %dx%d", logo.Format, logo.Width, logo.Height)
	case in.RemoveLogo:
		detail += " logo=removed"
	}
	// The change is committed: a failure to record it is not the change's.
	_ = s.store.AppendAudit(ctx, verifyd.AuditEntry{At: now, BusinessID: businessID, Actor: verifyd.ActorFrom(ctx),
		Action: verifyd.AuditBrandingSet, Subject: businessID, Detail: detail})
	return s.store.Branding(ctx, businessID)
}

// Notice is what the hosted pages tell a customer before their face is
// processed: who decides about their data (the business, controller), who
// processes it for the business (this installation, processor), how long
// it is kept, and where to read more or ask.
type Notice struct {
	// Controller is the name the business shows (its display name, else
	// its registered name).
	Controller   string
	AccentColour string
	SupportEmail string
	PrivacyURL   string
	// LogoVersion is "" without a logo, else a short hash of it that pages
	// put in the logo's URL so a new logo is never served from a cache.
	LogoVersion string
	Processor   Processor
	// RetentionDays is the business's retention in force: how many days
	// after the decision images and evidence are kept.
	RetentionDays int
}

// Notice returns the notice of a business.
func (s *Service) Notice(ctx context.Context, businessID string) (Notice, error) {
	biz, err := s.store.Business(ctx, businessID)
	if err != nil {
		return Notice{}, err
	}
	b, err := s.store.Branding(ctx, businessID)
	if err != nil {
		return Notice{}, err
	}
	n := Notice{Controller: biz.Name, AccentColour: b.AccentColour, SupportEmail: b.SupportEmail,
		PrivacyURL: b.PrivacyURL, Processor: s.processor, RetentionDays: biz.RetentionDays}
	if b.DisplayName != "" {
		n.Controller = b.DisplayName
	}
	if b.Logo != nil {
		n.LogoVersion = hex.EncodeToString(b.Logo.SHA256[:6])
	}
	return n, nil
}
