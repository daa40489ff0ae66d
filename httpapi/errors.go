package httpapi

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/verifyd/verifyd"
)

// errorBody is SPEC.md's error body. Errors lists field problems on 422 so
// integrators can fix a request without guessing; SPEC's two fields are
// always present and unchanged.
type errorBody struct {
	Message    string               `json:"message"`
	StatusCode int                  `json:"status_code"`
	Errors     []verifyd.FieldError `json:"errors,omitempty"`
	// OAuthError and OAuthDescription are RFC 6749 §5.2's error and
	// error_description, set only by the token endpoint (A2): OAuth client
	// libraries read them, and some take a body without "error" for a
	// token.
	OAuthError       string `json:"error,omitempty"`
	OAuthDescription string `json:"error_description,omitempty"`
}

// statusOf is the one place error codes become HTTP statuses.
func statusOf(code verifyd.ErrorCode) int {
	switch code {
	case verifyd.EMalformed, verifyd.EBadRequest:
		return http.StatusBadRequest
	case verifyd.EInvalid:
		return http.StatusUnprocessableEntity
	case verifyd.EUnauthorized:
		return http.StatusUnauthorized
	case verifyd.EForbidden:
		return http.StatusForbidden
	case verifyd.ENotFound:
		return http.StatusNotFound
	case verifyd.EMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case verifyd.EConflict:
		return http.StatusConflict
	case verifyd.ETooLarge:
		return http.StatusRequestEntityTooLarge
	case verifyd.EUnavailable:
		return http.StatusServiceUnavailable
	case verifyd.ETooManyRequests:
		return http.StatusTooManyRequests
	}
	return http.StatusInternalServerError
}

// writeError answers with SPEC's error body. Only the safe message of a
// *verifyd.Error reaches the client; anything else is logged in full and
// answered as "Internal Server Error".
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	body := s.errorBody(r, err)
	writeJSON(w, body.StatusCode, body)
}

// errorBody is writeError's body for err, logged as writeError logs it.
func (s *Server) errorBody(r *http.Request, err error) errorBody {
	body := errorBody{Message: verifyd.MsgInternal}
	var e *verifyd.Error
	if errors.As(err, &e) {
		body.Message, body.Errors = e.Message, e.Fields
	}
	code := verifyd.ErrorCodeOf(err)
	body.StatusCode = statusOf(code)
	if body.StatusCode == http.StatusInternalServerError {
		body.Message, body.Errors = verifyd.MsgInternal, nil
		s.logger(r).ErrorContext(r.Context(), "request failed", slog.Any("err", err))
	} else if e != nil && e.Err != nil {
		s.logger(r).InfoContext(r.Context(), "request refused", slog.Any("err", err))
	}
	return body
}

// writeJSON writes v as the response body with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Errors with fixed SPEC messages used by the handlers.
var (
	errMalformed          = &verifyd.Error{Code: verifyd.EMalformed, Message: verifyd.MsgMalformed}
	errInvalidAuth        = &verifyd.Error{Code: verifyd.EUnauthorized, Message: verifyd.MsgInvalidAuthentication}
	errInvalidClient      = &verifyd.Error{Code: verifyd.EUnauthorized, Message: verifyd.MsgInvalidClient}
	errRouteNotFound      = &verifyd.Error{Code: verifyd.ENotFound, Message: verifyd.MsgNotFound}
	errMethodNotAllowed   = &verifyd.Error{Code: verifyd.EMethodNotAllowed, Message: verifyd.MsgMethodNotAllowed}
	errRequestTooLarge    = &verifyd.Error{Code: verifyd.ETooLarge, Message: verifyd.MsgTooLarge}
	errServiceUnavailable = &verifyd.Error{Code: verifyd.EUnavailable, Message: verifyd.MsgUnavailable}
)
