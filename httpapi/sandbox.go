package httpapi

import (
	"net/http"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/httpapi/request"
	"github.com/verifyd/verifyd/identity"
)

// simulate moves a sandbox verification as the engine would and answers
// with the B3 body.
func (s *Server) simulate(w http.ResponseWriter, r *http.Request, cred verifyd.Credential, body []byte) error {
	var in identity.SimulateInput
	if err := request.DecodeJSON(body, &in); err != nil {
		return err
	}
	v, err := s.deps.Identity.Simulate(r.Context(), cred, r.PathValue("id"), in)
	if err != nil {
		return err
	}
	request.WriteJSON(w, http.StatusOK, verificationBodyOf(v))
	return nil
}

// advanceTime moves a sandbox verification's clock forward and answers
// with the B3 body.
func (s *Server) advanceTime(w http.ResponseWriter, r *http.Request, cred verifyd.Credential, body []byte) error {
	var in identity.AdvanceTimeInput
	if err := request.DecodeJSON(body, &in); err != nil {
		return err
	}
	v, err := s.deps.Identity.AdvanceTime(r.Context(), cred, r.PathValue("id"), in)
	if err != nil {
		return err
	}
	request.WriteJSON(w, http.StatusOK, verificationBodyOf(v))
	return nil
}
