package dashboard

import (
	"crypto/subtle"
	"encoding/base32"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// TOTP (RFC 6238) with github.com/pquerna/otp: 6 digits, 30-second steps,
// SHA-1, the parameters every authenticator app supports. The library
// computes the codes; checking here (rather than with totp.Validate) is
// what tells which time step matched, so a code is accepted only once.

// totpPeriod is the length of a time step.
const totpPeriod = 30

var totpOpts = totp.ValidateOpts{Period: totpPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// TOTPKey is a new TOTP secret for a user to enrol in an authenticator app.
type TOTPKey struct {
	// Secret is the base32 secret, to type into an app.
	Secret string
	// URL is the otpauth:// URI, for a QR code.
	URL string
}

// NewTOTPKey returns a fresh 160-bit secret for the account (an e-mail
// address) from random.
func NewTOTPKey(random io.Reader, account string) (TOTPKey, error) {
	k, err := totp.Generate(totp.GenerateOpts{Issuer: "verifyd dashboard", AccountName: account,
		Period: totpPeriod, SecretSize: 20, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1, Rand: random})
	if err != nil {
		return TOTPKey{}, err
	}
	return TOTPKey{Secret: k.Secret(), URL: k.URL()}, nil
}

// TOTPKeyFor returns the key of an existing secret (one a form sent
// back), or an error when it is not base32 of at least 160 bits.
func TOTPKeyFor(account, secret string) (TOTPKey, error) {
	raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(secret)
	if err != nil || len(raw) < 20 || len(raw) > 64 {
		return TOTPKey{}, errors.New("dashboard: not a TOTP secret of 160 to 512 bits")
	}
	k, err := totp.Generate(totp.GenerateOpts{Issuer: "verifyd dashboard", AccountName: account,
		Period: totpPeriod, Secret: raw, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return TOTPKey{}, err
	}
	return TOTPKey{Secret: k.Secret(), URL: k.URL()}, nil
}

// TOTPCode is the code of secret at t; tests and the CLI use it.
func TOTPCode(secret string, t time.Time) (string, error) {
	return totp.GenerateCodeCustom(secret, t, totpOpts)
}

// checkTOTP returns the time step (Unix time / 30) whose code is code,
// trying the step of now and one on either side for clock drift, or 0
// when none matches. Codes are compared in constant time.
func checkTOTP(secret, code string, now time.Time) int64 {
	code = strings.ReplaceAll(strings.TrimSpace(code), " ", "")
	if len(code) != 6 {
		return 0
	}
	step := now.Unix() / totpPeriod
	var found int64
	for _, s := range []int64{step - 1, step, step + 1} {
		want, err := totp.GenerateCodeCustom(secret, time.Unix(s*totpPeriod, 0), totpOpts)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			found = s
		}
	}
	return found
}
