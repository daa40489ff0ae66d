package sdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/verifyd/verifyd/signature"
)

// MaxWebhookBytes is the largest webhook body VerifyWebhook reads. A
// status-change payload is a few hundred bytes.
const MaxWebhookBytes = 64 << 10

// Errors returned by the webhook verifiers. Receivers answer a request
// that fails with either of them with 401 and ignore its content.
var (
	// ErrInvalidSignature means the Authorization header is missing or not
	// of the form "hmac KEY:HEX", or the HMAC does not match the body.
	ErrInvalidSignature = errors.New("verifyd: invalid webhook signature")
	// ErrUnknownAPIKey means the webhook names an API key the receiver does
	// not know.
	ErrUnknownAPIKey = errors.New("verifyd: webhook signed with an unknown API key")
)

// Event is the payload of a status-change webhook.
type Event struct {
	// ID is the id of the verification whose status changed.
	ID string `json:"id"`
	// CustomerID is the customer id supplied when the verification was
	// created.
	CustomerID string `json:"customer_id"`
	// Status is the new status.
	Status Status `json:"status"`
	// Reason is the failure reason, or ReasonNone.
	Reason Reason `json:"reason"`
	// APIKey is the API key that signed the webhook: the key that created
	// the verification. It is not part of the payload.
	APIKey string `json:"-"`
}

// VerifyWebhookBody checks that authHeader, the value of the webhook's
// Authorization header, is "hmac KEY:HEX" where HEX is the HMAC-SHA256 of
// body keyed with secret. The comparison takes constant time. It returns
// nil when the signature is valid and ErrInvalidSignature otherwise.
//
// body must be the raw request body, byte for byte, as received; a body
// decoded and encoded again does not verify.
func VerifyWebhookBody(body []byte, authHeader string, secret string) error {
	_, sig, ok := signature.ParseHeader(authHeader)
	if !ok || secret == "" || !signature.Verify(secret, body, sig) {
		return ErrInvalidSignature
	}
	return nil
}

// VerifyWebhook reads the body of a status-change webhook request,
// verifies its signature and decodes its payload. secretForKey returns the
// API secret of the API key named in the Authorization header, and false
// when the key is unknown; receivers that use one key return their secret
// when the key matches theirs.
//
// It returns ErrUnknownAPIKey when secretForKey does not know the key,
// ErrInvalidSignature when the header or the HMAC is wrong, and another
// error when the body cannot be read or decoded. After a call the request
// body can be read again.
func VerifyWebhook(r *http.Request, secretForKey func(apiKey string) (string, bool)) (Event, error) {
	if r.Body == nil {
		return Event{}, ErrInvalidSignature
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxWebhookBytes+1))
	_ = r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return Event{}, fmt.Errorf("verifyd: read webhook body: %w", err)
	}
	if len(body) > MaxWebhookBytes {
		return Event{}, fmt.Errorf("verifyd: webhook body larger than %d bytes", MaxWebhookBytes)
	}
	header := r.Header.Get("Authorization")
	apiKey, _, ok := signature.ParseHeader(header)
	if !ok {
		return Event{}, ErrInvalidSignature
	}
	secret, ok := secretForKey(apiKey)
	if !ok {
		return Event{}, ErrUnknownAPIKey
	}
	if err := VerifyWebhookBody(body, header, secret); err != nil {
		return Event{}, err
	}
	var ev Event
	if err := json.Unmarshal(body, &ev); err != nil {
		return Event{}, fmt.Errorf("verifyd: decode webhook payload: %w", err)
	}
	ev.APIKey = apiKey
	return ev, nil
}
