// Package signature implements the request signing of SPEC.md: the header
// "Authorization: hmac <API_KEY>:<HMAC>", where HMAC is the hex-encoded
// HMAC-SHA256 of the signed input keyed with the API secret. The service, the
// webhook sender and the Go SDK all use this one implementation.
package signature

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Scheme is the authorization scheme name.
const Scheme = "hmac"

// Sign returns the lowercase hex HMAC-SHA256 of msg keyed with secret.
func Sign(secret string, msg []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(msg)
	return hex.EncodeToString(m.Sum(nil))
}

// Header returns the Authorization header value for key and a signature.
func Header(apiKey, sig string) string { return Scheme + " " + apiKey + ":" + sig }

// Verify reports whether sig (hex, either case) is the HMAC of msg under
// secret. The comparison is constant-time in the signature's content.
func Verify(secret string, msg []byte, sig string) bool {
	got, err := hex.DecodeString(sig)
	if err != nil || len(got) != sha256.Size {
		return false
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(msg)
	return hmac.Equal(m.Sum(nil), got)
}

// VerifyAny reports whether sig (hex, either case) is the HMAC under secret
// of any of msgs, for inputs a client may have signed in several forms (a
// GET's request URI). It computes every candidate's HMAC whichever matches,
// so the time taken does not tell which one did, and keys the HMAC once for
// all of them: on the API's GET path that key schedule, done per candidate
// by Verify, was half the cost of the check.
func VerifyAny(secret, sig string, msgs ...string) bool {
	var want [sha256.Size]byte
	if len(sig) != hex.EncodedLen(sha256.Size) {
		return false
	}
	if _, err := hex.Decode(want[:], []byte(sig)); err != nil {
		return false
	}
	m := hmac.New(sha256.New, []byte(secret))
	longest := 0
	for _, msg := range msgs {
		longest = max(longest, len(msg))
	}
	// One buffer for the sum and each candidate in turn: m.Write([]byte(msg))
	// would allocate a copy per candidate.
	buf := make([]byte, sha256.Size+longest)
	sum := buf[:0:sha256.Size]
	match := false
	for _, msg := range msgs {
		m.Reset()
		m.Write(buf[sha256.Size : sha256.Size+copy(buf[sha256.Size:], msg)])
		if hmac.Equal(m.Sum(sum), want[:]) {
			match = true
		}
	}
	return match
}

// ParseHeader splits an Authorization header of the form "hmac KEY:HEX". The
// scheme is matched case-insensitively, as HTTP schemes are.
func ParseHeader(h string) (apiKey, sig string, ok bool) {
	scheme, rest, found := strings.Cut(strings.TrimSpace(h), " ")
	if !found || !strings.EqualFold(scheme, Scheme) {
		return "", "", false
	}
	apiKey, sig, found = strings.Cut(strings.TrimSpace(rest), ":")
	if !found || apiKey == "" || sig == "" {
		return "", "", false
	}
	return apiKey, sig, true
}
