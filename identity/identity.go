// Package identity holds the identity-verification use cases of SPEC.md
// section B: creating a verification for the hosted flow (B1), accepting a
// direct selfie-and-document submission (B2) and reading one back (B3).
package identity

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/netguard"
	"github.com/verifyd/verifyd/seal"
)

// Config holds what the identity use cases need from the deployment.
type Config struct {
	// AllowHTTPWebhooks permits http:// webhooks in production (a --dev
	// server). The sandbox always permits them so integrators can test
	// against local receivers.
	AllowHTTPWebhooks bool
	// HostedBaseURL returns the public base URL of the identity interface of
	// an environment; hosted pages live under it.
	HostedBaseURL func(verifyd.Environment) string
	// Guard refuses webhooks on internal networks (unless it allows them).
	Guard *netguard.Guard
	// Pipeline decides production submissions.
	Pipeline *engine.Pipeline
}

// Service implements the identity use cases.
type Service struct {
	store  verifyd.Store
	sealer *seal.Sealer
	rand   io.Reader
	now    func() time.Time
	cfg    Config
}

// New returns a Service.
func New(store verifyd.Store, sealer *seal.Sealer, rand io.Reader, now func() time.Time, cfg Config) *Service {
	return &Service{store: store, sealer: sealer, rand: rand, now: now, cfg: cfg}
}

// CreateInput is the body of B1.
type CreateInput struct {
	Customer    verifyd.Customer `json:"customer"`
	RedirectURI string           `json:"redirect_uri"`
	Webhook     string           `json:"webhook"`
}

// SubmitInput is the body of B2.
type SubmitInput struct {
	Customer struct {
		verifyd.Customer
		Selfie   string        `json:"selfie"`
		Document DocumentInput `json:"document"`
	} `json:"customer"`
	Webhook string `json:"webhook"`
}

// DocumentInput is the document of a B2 submission.
type DocumentInput struct {
	Type    string `json:"type"`
	Country string `json:"country"`
	Front   string `json:"front"`
	Back    string `json:"back"`
}

// View is a verification as the API shows it.
type View struct {
	verifyd.Verification
	// HostedURL is where the customer completes a hosted verification ("" for
	// direct submissions).
	HostedURL string
}

func (s *Service) webhookRule(env verifyd.Environment) verifyd.URLRule {
	return verifyd.URLRule{AllowHTTP: s.cfg.AllowHTTPWebhooks || env == verifyd.EnvSandbox}
}

// checkWebhook applies the URL rule and the internal-network guard.
func (s *Service) checkWebhook(ctx context.Context, p *verifyd.Problems, env verifyd.Environment, webhook string) {
	if problem := s.webhookRule(env).CheckURL(webhook); problem != "" {
		p.Add("webhook", problem)
		return
	}
	if s.cfg.Guard != nil {
		if err := s.cfg.Guard.CheckURL(ctx, webhook); err != nil {
			p.Add("webhook", "must not point at a loopback, private or otherwise internal address")
		}
	}
}

func (s *Service) checkCustomer(p *verifyd.Problems, c verifyd.Customer) {
	if !verifyd.ValidCustomerID(c.ID) {
		p.Add("customer.id", "must be a UUID v4")
	}
	if !verifyd.ValidEmail(c.Email) {
		p.Add("customer.email", "must be an e-mail address")
	}
	if c.Phone != "" && !verifyd.ValidPhone(c.Phone) {
		p.Add("customer.phone", "must be a telephone number")
	}
}

func (s *Service) newVerification(cred verifyd.Credential, c verifyd.Customer, webhook string, flow verifyd.Flow) (verifyd.Verification, error) {
	id, err := uuid.NewRandomFromReader(s.rand)
	if err != nil {
		return verifyd.Verification{}, err
	}
	now := s.now().UTC()
	return verifyd.Verification{
		ID: id.String(), BusinessID: cred.BusinessID, Environment: cred.Environment, APIKey: cred.APIKey,
		Customer: c, Webhook: webhook, Flow: flow, Status: verifyd.StatusPending,
		CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(verifyd.VerificationLifetime),
	}, nil
}

// tokenAAD binds a sealed hosted token to its verification.
func tokenAAD(id string) []byte { return []byte("hosted-token/" + id) }

// HashToken returns the lookup hash of a hosted-page token.
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// Create starts a hosted verification (B1).
func (s *Service) Create(ctx context.Context, cred verifyd.Credential, in CreateInput) (View, error) {
	var p verifyd.Problems
	s.checkCustomer(&p, in.Customer)
	s.checkWebhook(ctx, &p, cred.Environment, in.Webhook)
	if in.RedirectURI != "" {
		if problem := (verifyd.URLRule{AllowHTTP: true}).CheckURL(in.RedirectURI); problem != "" {
			p.Add("redirect_uri", problem)
		} else {
			list := verifyd.RedirectList{BusinessID: cred.BusinessID, Interface: verifyd.InterfaceIdentity, Environment: cred.Environment}
			ok, err := s.store.RedirectAllowed(ctx, list, in.RedirectURI)
			if err != nil {
				return View{}, err
			}
			if !ok {
				p.Add("redirect_uri", "is not on the allowed redirect list")
			}
		}
	}
	if err := p.Err(); err != nil {
		return View{}, err
	}
	v, err := s.newVerification(cred, in.Customer, in.Webhook, verifyd.FlowHosted)
	if err != nil {
		return View{}, err
	}
	v.RedirectURI = in.RedirectURI
	token, err := verifyd.RandomToken(s.rand, 32)
	if err != nil {
		return View{}, err
	}
	v.HostedTokenHash = HashToken(token)
	if v.SealedHostedToken, err = s.sealer.Seal([]byte(token), tokenAAD(v.ID)); err != nil {
		return View{}, err
	}
	if err := s.store.CreateVerification(ctx, v, nil); err != nil {
		return View{}, fmt.Errorf("create verification: %w", err)
	}
	return View{Verification: v, HostedURL: s.hostedURL(v.Environment, token)}, nil
}

func (s *Service) hostedURL(env verifyd.Environment, token string) string {
	return strings.TrimSuffix(s.cfg.HostedBaseURL(env), "/") + "/verify/" + token
}

// imageAAD binds a sealed image to its verification and role.
func imageAAD(id string, kind verifyd.ImageKind) []byte {
	return []byte("image/" + id + "/" + string(kind))
}

// Submit accepts a direct selfie and document submission (B2). The images
// are validated and sealed; deciding the outcome is the engine's job.
func (s *Service) Submit(ctx context.Context, cred verifyd.Credential, in SubmitInput) (View, error) {
	var p verifyd.Problems
	s.checkCustomer(&p, in.Customer.Customer)
	s.checkWebhook(ctx, &p, cred.Environment, in.Webhook)
	doc := in.Customer.Document
	docType := verifyd.DocumentType(doc.Type)
	if doc.Type == "" {
		docType = verifyd.DocPassport
	}
	if !docType.Valid() {
		p.Add("customer.document.type", "must be IdCard, DriverLicense, Passport or ResidencePermit")
	}
	if !verifyd.ValidDocumentCountry(doc.Country) {
		p.Add("customer.document.country", "must be a lowercase 3-letter country code from the supported list")
	}
	type field struct {
		name string
		kind verifyd.ImageKind
		data string
	}
	fields := []field{
		{"customer.selfie", verifyd.ImageSelfie, in.Customer.Selfie},
		{"customer.document.front", verifyd.ImageDocumentFront, doc.Front},
	}
	if docType.NeedsBack() || doc.Back != "" {
		fields = append(fields, field{"customer.document.back", verifyd.ImageDocumentBack, doc.Back})
	}
	images := make([]verifyd.Image, len(fields))
	for n, f := range fields {
		im, problem := verifyd.DecodeImage(f.data)
		if problem != "" {
			p.Add(f.name, problem)
		}
		images[n] = im
	}
	if err := p.Err(); err != nil {
		return View{}, err
	}
	v, err := s.newVerification(cred, in.Customer.Customer, in.Webhook, verifyd.FlowDirect)
	if err != nil {
		return View{}, err
	}
	v.Document = verifyd.DocumentInfo{Type: docType, Country: doc.Country}
	stored := make([]verifyd.StoredImage, len(fields))
	for n, f := range fields {
		sealed, err := s.sealer.Seal(images[n].Bytes, imageAAD(v.ID, f.kind))
		if err != nil {
			return View{}, err
		}
		stored[n] = verifyd.StoredImage{Kind: f.kind, Format: images[n].Format, Width: images[n].Width,
			Height: images[n].Height, SHA256: images[n].SHA256(), Sealed: sealed}
	}
	if err := s.store.CreateVerification(ctx, v, stored); err != nil {
		return View{}, fmt.Errorf("create verification: %w", err)
	}
	return View{Verification: v}, nil
}

// Get returns a verification of the credential's business and environment
// (B3). Another tenant's id is reported as not found.
func (s *Service) Get(ctx context.Context, cred verifyd.Credential, id string) (View, error) {
	v, err := s.store.Verification(ctx, cred.BusinessID, cred.Environment, id)
	if err != nil {
		return View{}, err
	}
	return s.view(v)
}

// SummaryView is B3's answer: a verification's summary and its hosted
// page URL.
type SummaryView struct {
	verifyd.VerificationSummary
	// HostedURL is as in View.
	HostedURL string
}

// Summary returns what B3 answers with for a verification of the
// credential's business and environment. It reads the store at every call,
// like Get: a status change shows in the next answer.
func (s *Service) Summary(ctx context.Context, cred verifyd.Credential, id string) (SummaryView, error) {
	v, err := s.store.VerificationSummary(ctx, cred.BusinessID, cred.Environment, id)
	if err != nil {
		return SummaryView{}, err
	}
	url, err := s.hostedURLOf(v.ID, v.Environment, v.SealedHostedToken)
	if err != nil {
		return SummaryView{}, err
	}
	return SummaryView{VerificationSummary: v, HostedURL: url}, nil
}

// hostedURLOf opens a sealed hosted-page token into the page's URL; "" when
// there is none (direct submissions).
func (s *Service) hostedURLOf(id string, env verifyd.Environment, sealed []byte) (string, error) {
	if sealed == nil {
		return "", nil
	}
	token, err := s.sealer.Open(sealed, tokenAAD(id))
	if err != nil {
		return "", fmt.Errorf("open hosted token of %s: %w", id, err)
	}
	return s.hostedURL(env, string(token)), nil
}

func (s *Service) view(v verifyd.Verification) (View, error) {
	url, err := s.hostedURLOf(v.ID, v.Environment, v.SealedHostedToken)
	if err != nil {
		return View{}, err
	}
	return View{Verification: v, HostedURL: url}, nil
}

// ByHostedToken returns the verification a hosted-page token belongs to.
func (s *Service) ByHostedToken(ctx context.Context, token string) (View, error) {
	if token == "" {
		return View{}, verifyd.ErrNotFound
	}
	v, err := s.store.VerificationByHostedToken(ctx, HashToken(token))
	if errors.Is(err, verifyd.ErrNotFound) {
		return View{}, verifyd.ErrNotFound
	}
	if err != nil {
		return View{}, err
	}
	return s.view(v)
}
