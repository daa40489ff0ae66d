package httpapi

import (
	"context"
	"net/http"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/httpapi/request"
)

// getRedirects answers SPEC's {"body": [...]}.
func (s *Server) getRedirects(w http.ResponseWriter, r *http.Request, cred verifyd.Credential, _ []byte) error {
	urls, err := s.deps.Tenants.Redirects(r.Context(), cred)
	if err != nil {
		return err
	}
	request.WriteJSON(w, http.StatusOK, map[string][]string{"body": urls})
	return nil
}

// changeRedirects builds the PATCH, PUT and DELETE handlers: each decodes a
// JSON array of URLs, applies one change and answers 204.
func (s *Server) changeRedirects(apply func(context.Context, verifyd.Credential, []string) error) authed {
	return func(w http.ResponseWriter, r *http.Request, cred verifyd.Credential, body []byte) error {
		var urls []string
		if err := request.DecodeJSON(body, &urls); err != nil || urls == nil {
			return &verifyd.Error{Code: verifyd.EMalformed, Message: verifyd.MsgMalformed, Err: err}
		}
		if err := apply(r.Context(), cred, urls); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

func (s *Server) addRedirects(w http.ResponseWriter, r *http.Request, c verifyd.Credential, b []byte) error {
	return s.changeRedirects(s.deps.Tenants.AddRedirects)(w, r, c, b)
}

func (s *Server) replaceRedirects(w http.ResponseWriter, r *http.Request, c verifyd.Credential, b []byte) error {
	return s.changeRedirects(s.deps.Tenants.ReplaceRedirects)(w, r, c, b)
}

func (s *Server) removeRedirects(w http.ResponseWriter, r *http.Request, c verifyd.Credential, b []byte) error {
	return s.changeRedirects(s.deps.Tenants.RemoveRedirects)(w, r, c, b)
}
