// Package webauth is what a browser-facing part of verifyd needs to sign
// people in: argon2id password hashes, server-side sessions behind an
// HttpOnly cookie, a CSRF token per session, and the sign-in check with its
// rate limits (Logins). The review console uses it for operators and the
// age-verification flow for end users. docs/console.md explains the
// choices.
package webauth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// Params are argon2id's cost parameters.
type Params struct {
	Time      uint32 // passes over memory
	MemoryKiB uint32
	Threads   uint8
	SaltLen   uint32
	KeyLen    uint32
}

// DefaultParams are the parameters new hashes use: 2 passes over 64 MiB
// with 2 lanes, a 16-byte salt and a 32-byte hash (RFC 9106's second
// recommended option is t=3, m=64 MiB; OWASP's minimum for m=19 MiB is t=2).
// One verification costs about 60–120 ms of CPU on a current server core;
// docs/console.md has the measurement.
var DefaultParams = Params{Time: 2, MemoryKiB: 64 * 1024, Threads: 2, SaltLen: 16, KeyLen: 32}

// Bounds on what a stored hash may ask for, so that a corrupt or hostile
// hash string cannot make a verification allocate without limit.
const (
	maxMemoryKiB = 1 << 20 // 1 GiB
	maxTime      = 16
)

// Password length rules.
const (
	MinPasswordLen = 12   // characters
	MaxPasswordLen = 1024 // bytes; argon2 accepts more, but nobody types that
)

// ErrMismatch is returned by VerifyPassword for a wrong password.
var ErrMismatch = errors.New("webauth: password does not match")

// hashSlots bounds how many hashes run at once. Each one holds MemoryKiB of
// memory while it runs, so concurrent login attempts cannot exhaust memory:
// at most 4 × 64 MiB with the default parameters. Others wait their turn.
var hashSlots = make(chan struct{}, 4)

func idKey(password, salt []byte, p Params) []byte {
	hashSlots <- struct{}{}
	defer func() { <-hashSlots }()
	return argon2.IDKey(password, salt, p.Time, p.MemoryKiB, p.Threads, p.KeyLen)
}

var b64 = base64.RawStdEncoding

// CheckPassword applies the password policy: at least MinPasswordLen
// characters and at most MaxPasswordLen bytes of valid UTF-8.
func CheckPassword(password string) error {
	switch {
	case !utf8.ValidString(password):
		return errors.New("the password is not valid UTF-8")
	case utf8.RuneCountInString(password) < MinPasswordLen:
		return fmt.Errorf("the password must have at least %d characters", MinPasswordLen)
	case len(password) > MaxPasswordLen:
		return fmt.Errorf("the password must have at most %d bytes", MaxPasswordLen)
	}
	return nil
}

// HashPassword hashes a password with argon2id and DefaultParams, with a
// fresh random salt, and returns the PHC string
// $argon2id$v=19$m=65536,t=2,p=2$SALT$HASH (unpadded standard base64).
func HashPassword(password string) (string, error) {
	return HashPasswordWith(password, DefaultParams, rand.Reader)
}

// HashPasswordWith hashes with the given parameters and salt source.
func HashPasswordWith(password string, p Params, random io.Reader) (string, error) {
	if len(password) > MaxPasswordLen {
		return "", fmt.Errorf("the password must have at most %d bytes", MaxPasswordLen)
	}
	if p.Time == 0 || p.Time > maxTime || p.MemoryKiB < 8*uint32(p.Threads) || p.MemoryKiB > maxMemoryKiB ||
		p.Threads == 0 || p.SaltLen < 8 || p.KeyLen < 16 {
		return "", fmt.Errorf("webauth: unusable argon2id parameters %+v", p)
	}
	salt := make([]byte, p.SaltLen)
	if _, err := io.ReadFull(random, salt); err != nil {
		return "", fmt.Errorf("read salt: %w", err)
	}
	key := idKey([]byte(password), salt, p)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.MemoryKiB, p.Time, p.Threads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// parseHash reads a PHC string written by HashPasswordWith.
func parseHash(encoded string) (p Params, salt, key []byte, err error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return p, nil, nil, errors.New("webauth: not an argon2id hash")
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return p, nil, nil, errors.New("webauth: unsupported argon2 version")
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &p.Threads); err != nil {
		return p, nil, nil, errors.New("webauth: bad argon2id parameters")
	}
	if p.Time == 0 || p.Time > maxTime || p.Threads == 0 || p.MemoryKiB < 8*uint32(p.Threads) || p.MemoryKiB > maxMemoryKiB {
		return p, nil, nil, errors.New("webauth: argon2id parameters out of bounds")
	}
	if salt, err = b64.DecodeString(parts[4]); err != nil || len(salt) < 8 {
		return p, nil, nil, errors.New("webauth: bad salt")
	}
	if key, err = b64.DecodeString(parts[5]); err != nil || len(key) < 16 || len(key) > 128 {
		return p, nil, nil, errors.New("webauth: bad hash")
	}
	p.SaltLen, p.KeyLen = uint32(len(salt)), uint32(len(key))
	return p, salt, key, nil
}

// VerifyPassword checks a password against a hash from HashPassword, with
// the parameters recorded in the hash, in constant time. It returns nil on
// a match, ErrMismatch for a wrong password, and another error for a hash
// it cannot read.
func VerifyPassword(encoded, password string) error {
	p, salt, want, err := parseHash(encoded)
	if err != nil {
		return err
	}
	if len(password) > MaxPasswordLen {
		return ErrMismatch
	}
	got := idKey([]byte(password), salt, p)
	if subtle.ConstantTimeCompare(got, want) != 1 {
		return ErrMismatch
	}
	return nil
}

// NeedsRehash reports whether a hash was made with other parameters than
// DefaultParams, so a caller may store a new hash after a successful login.
func NeedsRehash(encoded string) bool {
	p, _, _, err := parseHash(encoded)
	return err != nil || p.Time != DefaultParams.Time || p.MemoryKiB != DefaultParams.MemoryKiB ||
		p.Threads != DefaultParams.Threads || p.KeyLen != DefaultParams.KeyLen
}

// dummyHash is verified against when a username does not exist, so that an
// unknown user costs as much time as a wrong password.
var dummyHash = sync.OnceValue(func() string {
	h, err := HashPasswordWith("not a password of anyone", DefaultParams, rand.Reader)
	if err != nil {
		panic(err)
	}
	return h
})

// VerifyNobody spends the time of a password verification without a user,
// so that response times do not tell whether a username exists.
func VerifyNobody(password string) { _ = VerifyPassword(dummyHash(), password) }

// GeneratePassword returns a random password of 24 characters from a
// 64-character alphabet (144 bits of entropy).
func GeneratePassword(random io.Reader) (string, error) {
	b := make([]byte, 18)
	if _, err := io.ReadFull(random, b); err != nil {
		return "", fmt.Errorf("read random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
