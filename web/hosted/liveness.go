package hosted

import (
	"net/http"
	"time"

	"github.com/verifyd/verifyd/httpapi/request"
	"github.com/verifyd/verifyd/identity"
	"github.com/verifyd/verifyd/liveness"
)

// ChallengeBody is the answer of the liveness-challenge endpoints
// (docs/liveness-challenge.md): what the page must prompt and how it must
// record. Times are milliseconds; the page stamps each frame with its time
// since the lead-in began.
type ChallengeBody struct {
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

// NewChallengeBody is the answer for challenge c, prompts in lang.
func NewChallengeBody(lang string, c liveness.Challenge) ChallengeBody {
	b := ChallengeBody{ID: c.ID, Steps: c.Steps, LeadInMs: liveness.LeadIn.Milliseconds(),
		StepMs: liveness.StepWindow.Milliseconds(), FramesPerSecond: liveness.FramesPerSecond,
		MaxFrames: liveness.MaxFrames, MaxSide: liveness.MaxFrameSide, MaxFrameBytes: liveness.MaxFrameBytes,
		ExpiresAt: c.ExpiresAt.UTC().Format(time.RFC3339), LeadInPrompt: msg(lang, "live_lead_in"),
		Prompts: map[liveness.Step]string{}}
	for _, s := range c.Steps {
		b.Prompts[s] = msg(lang, "live_"+string(s))
	}
	return b
}

// Challenge draws the active liveness challenge the identity page
// performs after a camera selfie (POST /verify/{token}/liveness-challenge,
// X-CSRF-Token as for the submission). 201 with ChallengeBody; 409 when the
// verification takes no submission now.
func (hp *Pages) Challenge(w http.ResponseWriter, r *http.Request) {
	h := hp.hostedRequest(r)
	if err := hp.hostedLookup(r, h); err != nil {
		hp.hostedFail(w, r, h, err, nil)
		return
	}
	if !checkCSRF(r, h, "") {
		hp.hostedFail(w, r, h, ErrCSRF, nil)
		return
	}
	c, err := hp.Identity.IssueChallenge(r.Context(), h.token)
	if err != nil {
		hp.hostedFail(w, r, h, err, nil)
		return
	}
	request.WriteJSON(w, http.StatusCreated, NewChallengeBody(h.lang, c))
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
