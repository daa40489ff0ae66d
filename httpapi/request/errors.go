package request

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"

	"github.com/verifyd/verifyd"
)

// ErrorBody is SPEC.md's error body. Errors lists field problems on 422 so
// integrators can fix a request without guessing; SPEC's two fields are
// always present and unchanged.
type ErrorBody struct {
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

// StatusOf is the one place error codes become HTTP statuses.
func StatusOf(code verifyd.ErrorCode) int {
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

// WriteError answers with SPEC's error body. Only the safe message of a
// *verifyd.Error reaches the client; anything else is logged in full (to
// log, with the request's id) and answered as "Internal Server Error".
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	body := ErrorBodyOf(r, log, err)
	WriteJSON(w, body.StatusCode, body)
}

// ErrorBodyOf is WriteError's body for err, logged as WriteError logs it.
func ErrorBodyOf(r *http.Request, log *slog.Logger, err error) ErrorBody {
	body := ErrorBody{Message: verifyd.MsgInternal}
	var e *verifyd.Error
	if errors.As(err, &e) {
		body.Message, body.Errors = e.Message, e.Fields
	}
	code := verifyd.ErrorCodeOf(err)
	body.StatusCode = StatusOf(code)
	if body.StatusCode == http.StatusInternalServerError {
		body.Message, body.Errors = verifyd.MsgInternal, nil
		Logger(log, r).ErrorContext(r.Context(), "request failed", slog.Any("err", err))
	} else if e != nil && e.Err != nil {
		Logger(log, r).InfoContext(r.Context(), "request refused", slog.Any("err", err))
	}
	return body
}

// WriteJSON writes v as the response body with the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Errors with fixed SPEC messages that every handler may answer.
var (
	ErrMalformed        = &verifyd.Error{Code: verifyd.EMalformed, Message: verifyd.MsgMalformed}
	ErrRouteNotFound    = &verifyd.Error{Code: verifyd.ENotFound, Message: verifyd.MsgNotFound}
	ErrMethodNotAllowed = &verifyd.Error{Code: verifyd.EMethodNotAllowed, Message: verifyd.MsgMethodNotAllowed}
	ErrTooLarge         = &verifyd.Error{Code: verifyd.ETooLarge, Message: verifyd.MsgTooLarge}
)

// ReadBody reads a whole request body up to limit bytes. A longer body is
// ETooLarge; the caller needs the exact bytes because signatures cover them.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, ErrTooLarge
	}
	if r.Body == nil || r.Body == http.NoBody {
		// The server's body of a request without one (every GET): not
		// worth io.ReadAll's 512-byte buffer.
		return []byte{}, nil
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		return nil, BodyError(err)
	}
	return b, nil
}

// BodyError is the error of a failed body read: ETooLarge past the
// http.MaxBytesReader's limit, EMalformed otherwise.
func BodyError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return ErrTooLarge
	}
	return &verifyd.Error{Code: verifyd.EMalformed, Message: verifyd.MsgMalformed, Err: err}
}
