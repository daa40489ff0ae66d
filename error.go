package verifyd

import (
	"errors"
	"fmt"
)

// ErrorCode classifies an error independently of the transport. The HTTP
// layer maps each code to exactly one status in one place (httpapi/request/errors.go).
type ErrorCode string

// The error codes the service uses.
const (
	// EMalformed means the request could not be parsed at all (400).
	EMalformed ErrorCode = "malformed"
	// EBadRequest means the request parsed but is unusable for a reason other
	// than field validation (400), e.g. an allowed-redirect body that is not
	// a list of absolute URLs.
	EBadRequest ErrorCode = "bad_request"
	// EInvalid means one or more fields failed validation (422).
	EInvalid ErrorCode = "invalid"
	// EUnauthorized means credentials were missing, wrong or revoked (401).
	EUnauthorized ErrorCode = "unauthorized"
	// EForbidden means the caller is known but may not do this (403): a
	// dashboard user whose role does not allow it.
	EForbidden ErrorCode = "forbidden"
	// ENotFound means the resource does not exist for this caller (404).
	ENotFound ErrorCode = "not_found"
	// EConflict means the request conflicts with the current state (409).
	EConflict ErrorCode = "conflict"
	// ETooLarge means the body exceeded its limit (413).
	ETooLarge ErrorCode = "too_large"
	// EMethodNotAllowed means the path exists but not for this method (405).
	EMethodNotAllowed ErrorCode = "method_not_allowed"
	// ETooManyRequests means the client sent more requests than it may
	// (429); the response says when to try again.
	ETooManyRequests ErrorCode = "too_many_requests"
	// EUnavailable means a dependency is down and the caller may retry (503).
	EUnavailable ErrorCode = "unavailable"
	// EInternal is everything else; its details are logged, never sent (500).
	EInternal ErrorCode = "internal"
)

// Public messages fixed by SPEC.md. Clients match on these strings, so they
// are constants and never composed from internal error text.
const (
	MsgMalformed             = "the request could not be understood by the server due to malformed syntax"
	MsgInvalidParameters     = "invalid parameters"
	MsgInvalidAuthentication = "invalid authentication"
	MsgInvalidClient         = "invalid client"
	MsgInternal              = "Internal Server Error"
	MsgNotFound              = "not found"
	MsgMethodNotAllowed      = "method not allowed"
	MsgTooLarge              = "request body too large"
	MsgUnavailable           = "service unavailable"
	MsgTooManyRequests       = "too many requests"
)

// FieldError names one field that failed validation and why. The list is
// returned to integrators next to the SPEC message so they can fix a request
// without guessing.
type FieldError struct {
	Field   string `json:"field"`
	Problem string `json:"problem"`
	// Code names the problem for pages that show it in the reader's
	// language (their catalogs' "problem_"+Code, with Arg for its one
	// %s); the API sends Problem, in English. Empty: Problem only.
	Code string `json:"-"`
	Arg  string `json:"-"`
}

// Error is the error type every layer returns for conditions a client may
// see. Message is safe to send; Fields optionally lists validation failures;
// Err, when set, is the internal cause and is only logged.
type Error struct {
	Code    ErrorCode
	Message string
	Fields  []FieldError
	Err     error
}

// Error implements the error interface. It includes the internal cause so
// that logs carry it; the HTTP layer never sends Error() to a client.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the internal cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code and a formatted public message.
func Errorf(code ErrorCode, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCodeOf returns the code of the first *Error in err's chain, or
// EInternal when there is none: anything unclassified is an internal error.
func ErrorCodeOf(err error) ErrorCode {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}

// ErrNotFound is returned by stores when a row does not exist.
var ErrNotFound = &Error{Code: ENotFound, Message: MsgNotFound}

// InvalidFields returns the SPEC's 422 error carrying the field problems.
func InvalidFields(fields []FieldError) *Error {
	return &Error{Code: EInvalid, Message: MsgInvalidParameters, Fields: fields}
}
