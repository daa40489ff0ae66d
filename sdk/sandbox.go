package sdk

import (
	"context"
	"errors"
	"net/url"
)

// SandboxClient drives identity verifications in the sandbox environment,
// so integrators' tests can reach every status and reason on purpose. The
// production environment answers these calls with 404.
type SandboxClient struct{ c *Client }

// Sandbox returns the sandbox controls of an identity sandbox client.
func (c *Client) Sandbox() *SandboxClient { return &SandboxClient{c: c} }

func (s *SandboxClient) post(ctx context.Context, id, action string, in any) (*Verification, error) {
	if id == "" {
		return nil, errors.New("verifyd: empty verification id")
	}
	const p = "/api/v1/sandbox/identity-verification/"
	var out Verification
	if err := s.c.do(ctx, "POST", p+id+"/"+action, p+url.PathEscape(id)+"/"+action, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Simulate moves a sandbox verification to status (StatusStarted,
// StatusApproved or StatusFailed with a reason) exactly as the verification
// engine would, with the same webhooks. A pending verification asked to
// become approved or failed is started first. An impossible transition is a
// 422 *APIError.
func (s *SandboxClient) Simulate(ctx context.Context, id string, status Status, reason Reason) (*Verification, error) {
	return s.post(ctx, id, "simulate", struct {
		Status Status `json:"status"`
		Reason Reason `json:"reason,omitempty"`
	}{status, reason})
}

// AdvanceTime moves a sandbox verification's clock forward by seconds. The
// normal expiry mechanism then expires it within a few seconds once five
// days have passed on its clock.
func (s *SandboxClient) AdvanceTime(ctx context.Context, id string, seconds int64) (*Verification, error) {
	return s.post(ctx, id, "advance-time", struct {
		Seconds int64 `json:"seconds"`
	}{seconds})
}
