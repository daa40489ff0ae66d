package httpapi

import (
	"crypto/hmac"
	"net/http"
	"time"

	"github.com/verifyd/verifyd/agehosted"
	"github.com/verifyd/verifyd/httpapi/request"
	"github.com/verifyd/verifyd/identity"
	"github.com/verifyd/verifyd/liveness"
	"github.com/verifyd/verifyd/web/layout"
	"github.com/verifyd/verifyd/webauth"
)

// challengeBody is the answer of the liveness-challenge endpoints
// (docs/liveness-challenge.md): what the page must prompt and how it must
// record. Times are milliseconds; the page stamps each frame with its time
// since the lead-in began.
type challengeBody struct {
	ID              string                   `json:"id"`
	Steps           []liveness.Step          `json:"steps"`
	LeadInMs        int64                    `json:"lead_in_ms"`
	StepMs          int64                    `json:"step_ms"`
	FramesPerSecond int                      `json:"frames_per_second"`
	MaxFrames       int                      `json:"max_frames"`
	MaxSide         int                      `json:"max_side"`
	MaxFrameBytes   int                      `json:"max_frame_bytes"`
	ExpiresAt       string                   `json:"expires_at"`
	LeadInPrompt    string                   `json:"lead_in_prompt"`
	Prompts         map[liveness.Step]string `json:"prompts"`
}

func newChallengeBody(lang string, c liveness.Challenge) challengeBody {
	b := challengeBody{ID: c.ID, Steps: c.Steps, LeadInMs: liveness.LeadIn.Milliseconds(),
		StepMs: liveness.StepWindow.Milliseconds(), FramesPerSecond: liveness.FramesPerSecond,
		MaxFrames: liveness.MaxFrames, MaxSide: liveness.MaxFrameSide, MaxFrameBytes: liveness.MaxFrameBytes,
		ExpiresAt: c.ExpiresAt.UTC().Format(time.RFC3339), LeadInPrompt: msg(lang, "live_lead_in"),
		Prompts: map[liveness.Step]string{}}
	for _, s := range c.Steps {
		b.Prompts[s] = msg(lang, "live_"+string(s))
	}
	return b
}

// hostedChallenge draws the active liveness challenge the identity page
// performs after a camera selfie (POST /verify/{token}/liveness-challenge,
// X-CSRF-Token as for the submission). 201 with challengeBody; 409 when the
// verification takes no submission now.
func (s *Server) hostedChallenge(w http.ResponseWriter, r *http.Request) {
	h := s.hostedRequest(r)
	if err := s.hostedLookup(r, h); err != nil {
		s.hostedFail(w, r, h, err, nil)
		return
	}
	if !checkCSRF(r, h, "") {
		s.hostedFail(w, r, h, errCSRF, nil)
		return
	}
	c, err := s.deps.Identity.IssueChallenge(r.Context(), h.token)
	if err != nil {
		s.hostedFail(w, r, h, err, nil)
		return
	}
	request.WriteJSON(w, http.StatusCreated, newChallengeBody(h.lang, c))
}

// ageChallenge is hostedChallenge for the age flow's document method
// (POST /flow/{id}/liveness-challenge with the session's CSRF token in
// X-CSRF-Token).
func (s *Server) ageChallenge(w http.ResponseWriter, r *http.Request) {
	a, ok := s.flowHandler(w, r)
	if !ok {
		return
	}
	sent := r.Header.Get(webauth.CSRFHeader)
	if !layout.SameOrigin(r, a.mount) || a.session == nil || sent == "" || !hmac.Equal([]byte(sent), []byte(a.session.CSRFToken())) {
		s.ageDocumentFail(w, r, a, agehosted.State{}, errCSRF, nil)
		return
	}
	c, err := s.deps.AgeFlow.DocumentChallenge(r.Context(), a.request, a.visitor)
	if err != nil {
		s.ageDocumentFail(w, r, a, agehosted.State{}, err, nil)
		return
	}
	request.WriteJSON(w, http.StatusCreated, newChallengeBody(a.lang, c))
}

// livenessField reports whether a submission's field belongs to the
// liveness capture; the page shows their problems at the selfie.
func livenessField(f string) bool {
	switch f {
	case identity.FieldLivenessChallenge, identity.FieldLivenessFrame, identity.FieldLivenessFrameMs, identity.FieldLivenessManual:
		return true
	}
	return false
}
