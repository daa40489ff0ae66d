// Package seal encrypts values at rest (API secrets, hosted-page tokens,
// submitted images) with AES-256-GCM under the installation's master key.
//
// Every sealed value is bound to where it is stored through GCM's additional
// data (for example the API key a secret belongs to), so a ciphertext copied
// into another row does not decrypt.
package seal

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// KeySize is the master key length: 32 bytes selects AES-256.
const KeySize = 32

// version prefixes every ciphertext so the format can change later.
const version byte = 1

// Sealer encrypts and decrypts with one master key.
type Sealer struct {
	aead cipher.AEAD
	rand io.Reader
	// macKey is derived from the master key for keyed hashes (MAC).
	macKey []byte
}

// New returns a Sealer for a 32-byte key. Nonces come from r, which is
// crypto/rand.Reader in production and injectable in tests.
func New(key []byte, r io.Reader) (*Sealer, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("master key must be %d bytes, got %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	if r == nil {
		r = rand.Reader
	}
	derive := hmac.New(sha256.New, key)
	derive.Write([]byte("verifyd keyed hash v1"))
	return &Sealer{aead: aead, rand: r, macKey: derive.Sum(nil)}, nil
}

// MAC returns a keyed hash of data under a key derived from the master
// key. It identifies low-entropy values (document numbers) for equality
// checks without storing them or a hash that could be brute-forced.
func (s *Sealer) MAC(data []byte) []byte {
	m := hmac.New(sha256.New, s.macKey)
	m.Write(data)
	return m.Sum(nil)
}

// Seal encrypts plaintext bound to aad. The result is version‖nonce‖ciphertext.
func (s *Sealer) Seal(plaintext, aad []byte) ([]byte, error) {
	out := make([]byte, 1+s.aead.NonceSize(), 1+s.aead.NonceSize()+len(plaintext)+s.aead.Overhead())
	out[0] = version
	if _, err := io.ReadFull(s.rand, out[1:]); err != nil {
		return nil, fmt.Errorf("nonce: %w", err)
	}
	return s.aead.Seal(out, out[1:], plaintext, aad), nil
}

// ErrOpen is returned when a sealed value cannot be decrypted: wrong key,
// wrong additional data, or a damaged value.
var ErrOpen = errors.New("seal: value cannot be decrypted with this master key")

// Open decrypts a value made by Seal with the same aad.
func (s *Sealer) Open(sealed, aad []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < 1+n+s.aead.Overhead() || sealed[0] != version {
		return nil, ErrOpen
	}
	pt, err := s.aead.Open(nil, sealed[1:1+n], sealed[1+n:], aad)
	if err != nil {
		return nil, ErrOpen
	}
	return pt, nil
}

// ParseKey decodes a master key given as base64 (standard or URL-safe,
// padded or not) or as 64 hex digits.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if len(s) == 2*KeySize {
		if b, err := hex.DecodeString(s); err == nil {
			return b, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) == KeySize {
			return b, nil
		}
	}
	return nil, fmt.Errorf("master key must be %d bytes as base64 or hex", KeySize)
}

// LoadOrCreateKeyFile reads the master key from path, creating the file with
// a new random key (mode 0600) when it does not exist and create is true. It
// refuses a key file that other users can read. created reports whether a new
// key was written.
func LoadOrCreateKeyFile(path string, create bool, r io.Reader) (key []byte, created bool, err error) {
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		st, err := os.Stat(path)
		if err != nil {
			return nil, false, err
		}
		if st.Mode().Perm()&0o077 != 0 {
			return nil, false, fmt.Errorf("master key file %s is readable by other users (mode %v); run chmod 600", path, st.Mode().Perm())
		}
		key, err := ParseKey(string(bytes.TrimSpace(data)))
		if err != nil {
			return nil, false, fmt.Errorf("master key file %s: %w", path, err)
		}
		return key, false, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, false, err
	case !create:
		return nil, false, fmt.Errorf("master key file %s does not exist", path)
	}
	key = make([]byte, KeySize)
	if _, err := io.ReadFull(r, key); err != nil {
		return nil, false, err
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, false, err
		}
	}
	// Write the key to a temporary file (mode 0600) and publish it with a
	// hard link, which fails if path exists: a concurrent loader never sees a
	// partly written file, and if another process created the key meanwhile,
	// its key is used.
	f, err := os.CreateTemp(filepath.Dir(path), ".master-key-*")
	if err != nil {
		return nil, false, err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n"); err != nil {
		f.Close()
		return nil, false, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, false, err
	}
	if err := f.Close(); err != nil {
		return nil, false, err
	}
	if err := os.Link(f.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return LoadOrCreateKeyFile(path, false, r)
		}
		return nil, false, err
	}
	return key, true, nil
}

// CheckStore is what Verify needs from the database.
type CheckStore interface {
	PutSettingIfAbsent(ctx context.Context, name string, value []byte) ([]byte, error)
}

// checkSetting names the database setting that holds a value sealed under
// the master key the database was initialised with.
const checkSetting = "master_key_check"

var checkPlaintext = []byte("verifyd master key check")

// Verify makes sure this sealer's key is the database's key: the first
// caller stores a sealed check value; later callers must be able to open it.
// Without this, a server started with the wrong key would fail only when a
// client's request could not be authenticated.
func (s *Sealer) Verify(ctx context.Context, store CheckStore) error {
	mine, err := s.Seal(checkPlaintext, []byte(checkSetting))
	if err != nil {
		return err
	}
	stored, err := store.PutSettingIfAbsent(ctx, checkSetting, mine)
	if err != nil {
		return fmt.Errorf("store master key check: %w", err)
	}
	if pt, err := s.Open(stored, []byte(checkSetting)); err != nil || !bytes.Equal(pt, checkPlaintext) {
		return errors.New("the master key does not match the one this database was initialised with")
	}
	return nil
}
