package sdk

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// APIError is the error returned when the service answers with a status
// outside 2xx. Use errors.As to extract it:
//
//	var apiErr *sdk.APIError
//	if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusUnprocessableEntity {
//		// fix the fields listed in apiErr.Fields
//	}
type APIError struct {
	// StatusCode is the HTTP status of the response.
	StatusCode int
	// Message is the message of the error body, such as "invalid
	// authentication" or "invalid parameters". When the body is not a
	// verifyd error body, for example a page from a proxy, Message holds a
	// short excerpt of it, or the standard status text when it is empty.
	Message string
	// Fields lists the request fields that failed validation, when the
	// service names them (usually with status 422).
	Fields []FieldError
}

// FieldError names one request field that failed validation and says why.
type FieldError struct {
	// Field is the field's path in the request body, such as "customer.id".
	Field string `json:"field"`
	// Problem is a short description, such as "must be a UUID v4".
	Problem string `json:"problem"`
}

// Error returns the status, the message and the field problems on one line.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "verifyd: %d %s", e.StatusCode, e.Message)
	for i, f := range e.Fields {
		if i == 0 {
			b.WriteString(":")
		} else {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %s %s", f.Field, f.Problem)
	}
	return b.String()
}

// Field returns the problem reported for the named field, if any.
func (e *APIError) Field(name string) (FieldError, bool) {
	for _, f := range e.Fields {
		if f.Field == name {
			return f, true
		}
	}
	return FieldError{}, false
}

// maxExcerpt bounds the part of a non-JSON error body kept in Message.
const maxExcerpt = 200

// newAPIError builds the error of a non-2xx response from its status and
// body.
func newAPIError(status int, body []byte) *APIError {
	e := &APIError{StatusCode: status}
	var parsed struct {
		Message *string      `json:"message"`
		Errors  []FieldError `json:"errors"`
	}
	if json.Unmarshal(body, &parsed) == nil && parsed.Message != nil {
		e.Message, e.Fields = *parsed.Message, parsed.Errors
		return e
	}
	e.Message = excerpt(body)
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	return e
}

// excerpt returns the start of body as a single line of valid UTF-8.
func excerpt(body []byte) string {
	s := strings.ToValidUTF8(string(body), "\uFFFD")
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= maxExcerpt {
		return s
	}
	r := []rune(s)
	return string(r[:maxExcerpt]) + "…"
}
