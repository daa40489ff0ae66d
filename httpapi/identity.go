package httpapi

import (
	"bytes"
	"net/http"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/httpapi/request"
	"github.com/verifyd/verifyd/identity"
)

// customerBody is the customer object of SPEC's responses.
type customerBody struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

func customerOf(v identity.View) customerBody {
	return customerBody{ID: v.Customer.ID, Email: v.Customer.Email}
}

// createVerification is B1.
func (s *Server) createVerification(w http.ResponseWriter, r *http.Request, cred verifyd.Credential, body []byte) error {
	var in identity.CreateInput
	if err := request.DecodeJSON(body, &in); err != nil {
		return err
	}
	v, err := s.deps.Identity.Create(r.Context(), cred, in)
	if err != nil {
		return err
	}
	request.WriteJSON(w, http.StatusCreated, struct {
		ID          string       `json:"id"`
		Customer    customerBody `json:"customer"`
		RedirectURI string       `json:"redirect_uri"`
		Webhook     string       `json:"webhook"`
	}{v.ID, customerOf(v), v.HostedURL, v.Webhook})
	return nil
}

// submitVerification is B2.
func (s *Server) submitVerification(w http.ResponseWriter, r *http.Request, cred verifyd.Credential, body []byte) error {
	var in identity.SubmitInput
	if err := request.DecodeJSON(body, &in); err != nil {
		return err
	}
	v, err := s.deps.Identity.Submit(r.Context(), cred, in)
	if err != nil {
		return err
	}
	request.WriteJSON(w, http.StatusCreated, struct {
		ID       string         `json:"id"`
		Status   verifyd.Status `json:"status"`
		Customer customerBody   `json:"customer"`
		Webhook  string         `json:"webhook"`
	}{v.ID, v.Status, customerOf(v), v.Webhook})
	return nil
}

// verificationBody is B3's response.
type verificationBody struct {
	ID          string         `json:"id"`
	Customer    customerBody   `json:"customer"`
	RedirectURI string         `json:"redirect_uri"`
	Webhook     string         `json:"webhook"`
	Status      verifyd.Status `json:"status"`
	Reason      verifyd.Reason `json:"reason"`
}

func verificationBodyOf(v identity.View) verificationBody {
	return verificationBody{v.ID, customerOf(v), v.HostedURL, v.Webhook, v.Status, v.Reason}
}

// getVerification is B3.
func (s *Server) getVerification(w http.ResponseWriter, r *http.Request, cred verifyd.Credential, _ []byte) error {
	v, err := s.deps.Identity.Summary(r.Context(), cred, r.PathValue("id"))
	if err != nil {
		return err
	}
	request.WriteJSON(w, http.StatusOK, verificationBody{v.ID,
		customerBody{ID: v.Customer.ID, Email: v.Customer.Email}, v.HostedURL, v.Webhook, v.Status, v.Reason})
	return nil
}

// redactVerification deletes a verification's images, evidence and the
// customer's contact details and answers with the B3 body of what is left
// (docs/api.md "Retention and redaction"). The body is empty or a JSON
// object; like every POST, the HMAC covers it.
func (s *Server) redactVerification(w http.ResponseWriter, r *http.Request, cred verifyd.Credential, body []byte) error {
	if len(bytes.TrimSpace(body)) > 0 {
		var in struct{}
		if err := request.DecodeJSON(body, &in); err != nil {
			return err
		}
	}
	v, err := s.deps.Identity.Redact(r.Context(), cred, r.PathValue("id"))
	if err != nil {
		return err
	}
	request.WriteJSON(w, http.StatusOK, verificationBodyOf(v))
	return nil
}
