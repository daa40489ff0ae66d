package seal_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/verifyd/verifyd/seal"
)

// testKey returns a KeySize key whose bytes are b, b+1, b+2, ...
func testKey(b byte) []byte {
	k := make([]byte, seal.KeySize)
	for i := range k {
		k[i] = b + byte(i)
	}
	return k
}

func newSealer(t *testing.T, key []byte) *seal.Sealer {
	t.Helper()
	s, err := seal.New(key, nil)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

func TestNewKeyLength(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 16, 24, 31, 33, 64} {
		if _, err := seal.New(make([]byte, n), nil); err == nil {
			t.Errorf("New with a %d-byte key: want error", n)
		}
	}
	if _, err := seal.New(make([]byte, seal.KeySize), nil); err != nil {
		t.Errorf("New with a %d-byte key: %v", seal.KeySize, err)
	}
}

func TestSealOpenRoundTrip(t *testing.T) {
	t.Parallel()
	s := newSealer(t, testKey(1))
	tests := []struct {
		name      string
		plaintext []byte
		aad       []byte
	}{
		{"secret bound to key", []byte("vds_live_abcdef"), []byte("vdk_live_idv_xyz")},
		{"empty plaintext", []byte{}, []byte("aad")},
		{"nil aad", []byte("hello"), nil},
		{"binary", bytes.Repeat([]byte{0, 0xff, 0x80}, 1000), []byte{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sealed, err := s.Seal(tt.plaintext, tt.aad)
			if err != nil {
				t.Fatalf("Seal: %v", err)
			}
			// version(1) + nonce(12) + ciphertext + tag(16)
			if want := 1 + 12 + len(tt.plaintext) + 16; len(sealed) != want {
				t.Errorf("len(sealed) = %d, want %d", len(sealed), want)
			}
			if len(tt.plaintext) >= 8 && bytes.Contains(sealed, tt.plaintext) {
				t.Error("sealed value contains the plaintext")
			}
			got, err := s.Open(sealed, tt.aad)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if !bytes.Equal(got, tt.plaintext) {
				t.Errorf("Open = %q, want %q", got, tt.plaintext)
			}
		})
	}
}

func TestOpenFailures(t *testing.T) {
	t.Parallel()
	s := newSealer(t, testKey(1))
	plaintext := []byte("vds_live_secret")
	aad := []byte("vdk_live_idv_key1")
	sealed, err := s.Seal(plaintext, aad)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) []byte {
		b := bytes.Clone(sealed)
		b[i] ^= 0x01
		return b
	}
	tests := []struct {
		name   string
		opener *seal.Sealer
		sealed []byte
		aad    []byte
	}{
		{"different aad", s, sealed, []byte("vdk_live_idv_key2")},
		{"nil aad", s, sealed, nil},
		{"wrong key", newSealer(t, testKey(2)), sealed, aad},
		{"tampered version byte", s, flip(0), aad},
		{"tampered nonce", s, flip(5), aad},
		{"tampered ciphertext", s, flip(1 + 12), aad},
		{"tampered tag", s, flip(len(sealed) - 1), aad},
		{"truncated", s, sealed[:len(sealed)-1], aad},
		{"shorter than overhead", s, sealed[:1+12+15], aad},
		{"empty", s, nil, aad},
		{"extra byte", s, append(bytes.Clone(sealed), 0), aad},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.opener.Open(tt.sealed, tt.aad)
			if !errors.Is(err, seal.ErrOpen) {
				t.Errorf("Open error = %v, want ErrOpen", err)
			}
			if got != nil {
				t.Errorf("Open returned plaintext %q on failure", got)
			}
		})
	}
}

func TestSealNonceUnique(t *testing.T) {
	t.Parallel()
	s := newSealer(t, testKey(7))
	seen := map[string]bool{}
	for range 100 {
		sealed, err := s.Seal([]byte("same plaintext"), []byte("same aad"))
		if err != nil {
			t.Fatal(err)
		}
		nonce := string(sealed[1 : 1+12])
		if seen[nonce] {
			t.Fatalf("nonce %x reused", nonce)
		}
		seen[nonce] = true
	}
}

func TestSealUsesInjectedRandom(t *testing.T) {
	t.Parallel()
	nonce := bytes.Repeat([]byte{0xab}, 12)
	s, err := seal.New(testKey(3), bytes.NewReader(append(bytes.Clone(nonce), nonce...)))
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Seal([]byte("x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a[0] != 1 || !bytes.Equal(a[1:13], nonce) {
		t.Errorf("sealed prefix = %x, want version 01 then nonce %x", a[:13], nonce)
	}
	b, err := s.Seal([]byte("x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("same nonce, key and plaintext gave different ciphertexts")
	}
	// The reader is now exhausted: Seal must fail, not seal with a zero nonce.
	if _, err := s.Seal([]byte("x"), nil); err == nil {
		t.Error("Seal with an exhausted random reader: want error")
	}
}

func TestParseKey(t *testing.T) {
	t.Parallel()
	// 0xfb 0xff ... encodes to '+' and '/' in the standard alphabet and to
	// '-' and '_' in the URL-safe one, so each alphabet is really exercised.
	key := bytes.Repeat([]byte{0xfb, 0xff, 0xbf}, 11)[:seal.KeySize]
	std := base64.StdEncoding.EncodeToString(key)
	if !strings.ContainsAny(std, "+/") || !strings.HasSuffix(std, "=") {
		t.Fatalf("fixture %q does not exercise the alphabets", std)
	}
	tests := []struct {
		name string
		in   string
	}{
		{"base64 std padded", std},
		{"base64 std raw", base64.RawStdEncoding.EncodeToString(key)},
		{"base64 URL padded", base64.URLEncoding.EncodeToString(key)},
		{"base64 URL raw", base64.RawURLEncoding.EncodeToString(key)},
		{"hex lower", hex.EncodeToString(key)},
		{"hex upper", strings.ToUpper(hex.EncodeToString(key))},
		{"surrounding whitespace", "  " + std + "\n"},
		{"hex with trailing newline", hex.EncodeToString(key) + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := seal.ParseKey(tt.in)
			if err != nil {
				t.Fatalf("ParseKey(%q): %v", tt.in, err)
			}
			if !bytes.Equal(got, key) {
				t.Errorf("ParseKey(%q) = %x, want %x", tt.in, got, key)
			}
		})
	}

	t.Run("hex of other bytes", func(t *testing.T) {
		t.Parallel()
		// A hex string is also valid base64 (48 bytes); it must be read as hex.
		want := testKey(0x10)
		got, err := seal.ParseKey(hex.EncodeToString(want))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("ParseKey = %x, %v; want %x", got, err, want)
		}
	})

	refused := []struct {
		name string
		in   string
	}{
		{"empty", ""},
		{"base64 of 31 bytes", base64.StdEncoding.EncodeToString(key[:31])},
		{"base64 of 33 bytes", base64.StdEncoding.EncodeToString(append(bytes.Clone(key), 1))},
		{"base64 of 16 bytes", base64.StdEncoding.EncodeToString(key[:16])},
		{"62 hex digits", hex.EncodeToString(key[:31])},
		{"66 hex digits", hex.EncodeToString(append(bytes.Clone(key), 1))},
		{"64 chars not hex", strings.Repeat("zz", 32)},
		{"not base64", "this is not a key at all!"},
		// '_' is URL-safe only, '+' standard only: no alphabet decodes it.
		{"mixed alphabets", strings.Replace(std, "/", "_", 1)},
	}
	for _, tt := range refused {
		t.Run("refused/"+tt.name, func(t *testing.T) {
			t.Parallel()
			if got, err := seal.ParseKey(tt.in); err == nil {
				t.Errorf("ParseKey(%q) = %x, want error", tt.in, got)
			}
		})
	}
}

func TestLoadOrCreateKeyFile(t *testing.T) {
	t.Parallel()

	t.Run("creates with mode 0600 then reads the same key", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "sub", "dir", "master.key")
		key, created, err := seal.LoadOrCreateKeyFile(path, true, rand.Reader)
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		if !created || len(key) != seal.KeySize {
			t.Fatalf("created = %v, len(key) = %d", created, len(key))
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if perm := st.Mode().Perm(); perm != 0o600 {
			t.Errorf("key file mode = %v, want 0600", perm)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if fromFile, err := seal.ParseKey(string(data)); err != nil || !bytes.Equal(fromFile, key) {
			t.Errorf("file holds %q, which does not parse to the returned key (%v)", data, err)
		}

		again, created, err := seal.LoadOrCreateKeyFile(path, true, rand.Reader)
		if err != nil {
			t.Fatalf("second call: %v", err)
		}
		if created {
			t.Error("second call reports created = true")
		}
		if !bytes.Equal(again, key) {
			t.Errorf("second call key %x, want %x", again, key)
		}
		if _, _, err := seal.LoadOrCreateKeyFile(path, false, rand.Reader); err != nil {
			t.Errorf("create=false on an existing file: %v", err)
		}
	})

	t.Run("uses the given random reader", func(t *testing.T) {
		t.Parallel()
		want := testKey(0x40)
		path := filepath.Join(t.TempDir(), "master.key")
		key, _, err := seal.LoadOrCreateKeyFile(path, true, bytes.NewReader(want))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(key, want) {
			t.Errorf("key = %x, want %x", key, want)
		}
	})

	t.Run("short random reader fails and leaves no file", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "master.key")
		if _, _, err := seal.LoadOrCreateKeyFile(path, true, bytes.NewReader(make([]byte, 5))); err == nil {
			t.Fatal("want error")
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("key file exists after failure: %v", err)
		}
	})

	t.Run("missing file without create", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "master.key")
		if _, _, err := seal.LoadOrCreateKeyFile(path, false, rand.Reader); err == nil {
			t.Fatal("want error for a missing file with create=false")
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("create=false created a file: %v", err)
		}
	})

	t.Run("existing hex key file is read", func(t *testing.T) {
		t.Parallel()
		want := testKey(0x20)
		path := filepath.Join(t.TempDir(), "master.key")
		if err := os.WriteFile(path, []byte(hex.EncodeToString(want)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		key, created, err := seal.LoadOrCreateKeyFile(path, true, rand.Reader)
		if err != nil || created || !bytes.Equal(key, want) {
			t.Errorf("got %x created=%v err=%v, want %x", key, created, err, want)
		}
	})

	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o660} {
		t.Run("refuses mode "+mode.String(), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "master.key")
			if err := os.WriteFile(path, []byte(base64.StdEncoding.EncodeToString(testKey(9))), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, mode); err != nil {
				t.Fatal(err)
			}
			if _, _, err := seal.LoadOrCreateKeyFile(path, true, rand.Reader); err == nil {
				t.Errorf("key file with mode %v accepted", mode)
			}
		})
	}

	t.Run("refuses a file that is not a key", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "master.key")
		if err := os.WriteFile(path, []byte("not a key\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, err := seal.LoadOrCreateKeyFile(path, true, rand.Reader); err == nil {
			t.Error("garbage key file accepted")
		}
	})

	t.Run("concurrent creators agree on one key", func(t *testing.T) {
		t.Parallel()
		// Repeat to give a race between creating and writing the file a
		// chance to show.
		for round := range 50 {
			path := filepath.Join(t.TempDir(), "master.key")
			const n = 8
			keys := make([][]byte, n)
			createdCount := make([]bool, n)
			errs := make([]error, n)
			var start, done sync.WaitGroup
			start.Add(1)
			for i := range n {
				done.Go(func() {
					start.Wait()
					keys[i], createdCount[i], errs[i] = seal.LoadOrCreateKeyFile(path, true, rand.Reader)
				})
			}
			start.Done()
			done.Wait()
			creators := 0
			for i := range n {
				if errs[i] != nil {
					t.Fatalf("round %d: goroutine %d: %v", round, i, errs[i])
				}
				if !bytes.Equal(keys[i], keys[0]) {
					t.Fatalf("round %d: goroutine %d got key %x, goroutine 0 got %x", round, i, keys[i], keys[0])
				}
				if createdCount[i] {
					creators++
				}
			}
			if creators != 1 {
				t.Fatalf("round %d: %d goroutines report creating the key, want 1", round, creators)
			}
			onDisk, _, err := seal.LoadOrCreateKeyFile(path, false, nil)
			if err != nil || !bytes.Equal(onDisk, keys[0]) {
				t.Fatalf("round %d: file holds %x (%v), goroutines got %x", round, onDisk, err, keys[0])
			}
		}
	})
}

// memStore is an in-memory CheckStore: PutSettingIfAbsent stores the value
// unless the name is already set, and returns what is stored.
type memStore struct {
	mu       sync.Mutex
	settings map[string][]byte
	err      error
}

func (m *memStore) PutSettingIfAbsent(_ context.Context, name string, value []byte) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return nil, m.err
	}
	if m.settings == nil {
		m.settings = map[string][]byte{}
	}
	if v, ok := m.settings[name]; ok {
		return bytes.Clone(v), nil
	}
	m.settings[name] = bytes.Clone(value)
	return bytes.Clone(value), nil
}

func TestVerify(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("first stores, same key verifies, other key fails", func(t *testing.T) {
		t.Parallel()
		store := &memStore{}
		if err := newSealer(t, testKey(1)).Verify(ctx, store); err != nil {
			t.Fatalf("first Verify: %v", err)
		}
		if len(store.settings) != 1 {
			t.Fatalf("store holds %d settings, want 1", len(store.settings))
		}
		var stored []byte
		for _, v := range store.settings {
			stored = v
		}
		// A fresh sealer with the same key, as after a restart.
		if err := newSealer(t, testKey(1)).Verify(ctx, store); err != nil {
			t.Errorf("Verify with the same key: %v", err)
		}
		if err := newSealer(t, testKey(2)).Verify(ctx, store); err == nil {
			t.Error("Verify with another key: want error")
		}
		for _, v := range store.settings {
			if !bytes.Equal(v, stored) {
				t.Error("a later Verify replaced the stored check value")
			}
		}
	})

	t.Run("damaged check value fails", func(t *testing.T) {
		t.Parallel()
		store := &memStore{}
		s := newSealer(t, testKey(1))
		if err := s.Verify(ctx, store); err != nil {
			t.Fatal(err)
		}
		for k, v := range store.settings {
			v[len(v)-1] ^= 1
			store.settings[k] = v
		}
		if err := s.Verify(ctx, store); err == nil {
			t.Error("Verify against a damaged check value: want error")
		}
	})

	t.Run("store error is returned", func(t *testing.T) {
		t.Parallel()
		boom := errors.New("database is down")
		err := newSealer(t, testKey(1)).Verify(ctx, &memStore{err: boom})
		if !errors.Is(err, boom) {
			t.Errorf("Verify error = %v, want it to wrap %v", err, boom)
		}
	})
}
