package webauth_test

import (
	"crypto/rand"
	"errors"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/webauth"
)

// cheap keeps unit tests fast; the format and checks are the same.
var cheap = webauth.Params{Time: 1, MemoryKiB: 64, Threads: 1, SaltLen: 16, KeyLen: 32}

func TestPasswordHash(t *testing.T) {
	t.Parallel()
	h, err := webauth.HashPasswordWith("correct horse battery staple", cheap, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$") || strings.Count(h, "$") != 5 {
		t.Fatalf("hash %q is not a PHC argon2id string", h)
	}
	if err := webauth.VerifyPassword(h, "correct horse battery staple"); err != nil {
		t.Errorf("VerifyPassword(right password) = %v", err)
	}
	for _, wrong := range []string{"", "correct horse battery stapl", "Correct horse battery staple", "correct horse battery staple "} {
		if err := webauth.VerifyPassword(h, wrong); !errors.Is(err, webauth.ErrMismatch) {
			t.Errorf("VerifyPassword(%q) = %v, want ErrMismatch", wrong, err)
		}
	}
	again, _ := webauth.HashPasswordWith("correct horse battery staple", cheap, rand.Reader)
	if again == h {
		t.Error("two hashes of one password are equal: the salt is not random")
	}
	if !webauth.NeedsRehash(h) {
		t.Error("NeedsRehash of a hash with other parameters = false")
	}
}

func TestDefaultParamsHash(t *testing.T) {
	t.Parallel()
	h, err := webauth.HashPassword("correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=65536,t=2,p=2$") || webauth.NeedsRehash(h) {
		t.Fatalf("default hash %q", h)
	}
	if err := webauth.VerifyPassword(h, "correct horse battery staple"); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyRejectsBadHashes(t *testing.T) {
	t.Parallel()
	good, _ := webauth.HashPasswordWith("correct horse battery staple", cheap, rand.Reader)
	parts := strings.Split(good, "$")
	for name, h := range map[string]string{
		"empty":          "",
		"argon2i":        strings.Replace(good, "argon2id", "argon2i", 1),
		"bcrypt":         "$2a$10$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234",
		"version":        strings.Replace(good, "v=19", "v=16", 1),
		"huge memory":    strings.Join([]string{"", parts[1], parts[2], "m=4194304,t=1,p=1", parts[4], parts[5]}, "$"),
		"many passes":    strings.Join([]string{"", parts[1], parts[2], "m=64,t=1000,p=1", parts[4], parts[5]}, "$"),
		"no threads":     strings.Join([]string{"", parts[1], parts[2], "m=64,t=1,p=0", parts[4], parts[5]}, "$"),
		"short hash":     strings.Join([]string{"", parts[1], parts[2], parts[3], parts[4], "AAAA"}, "$"),
		"bad salt":       strings.Join([]string{"", parts[1], parts[2], parts[3], "!!!", parts[5]}, "$"),
		"extra segments": good + "$x",
	} {
		err := webauth.VerifyPassword(h, "correct horse battery staple")
		if err == nil || errors.Is(err, webauth.ErrMismatch) {
			t.Errorf("%s: VerifyPassword = %v, want an error about the hash", name, err)
		}
	}
}

func TestCheckPassword(t *testing.T) {
	t.Parallel()
	for pw, ok := range map[string]bool{
		"":                            false,
		"elevenchars":                 false,
		"twelve chars":                true,
		"ééééééééééé":                 false, // 11 characters, 22 bytes
		"éééééééééééé":                true,
		"\xff\xfe invalid utf-8 here": false,
		strings.Repeat("a", 1024):     true,
		strings.Repeat("a", 1025):     false,
	} {
		if err := webauth.CheckPassword(pw); (err == nil) != ok {
			t.Errorf("CheckPassword(%.20q…) = %v, want ok=%v", pw, err, ok)
		}
	}
}

func TestGeneratePassword(t *testing.T) {
	t.Parallel()
	a, err := webauth.GeneratePassword(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := webauth.GeneratePassword(rand.Reader)
	if len(a) != 24 || a == b || webauth.CheckPassword(a) != nil {
		t.Fatalf("generated %q and %q", a, b)
	}
}

// BenchmarkVerifyDefault measures one login's password check with the
// default parameters (docs/console.md quotes it).
func BenchmarkVerifyDefault(b *testing.B) {
	h, err := webauth.HashPassword("correct horse battery staple")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := webauth.VerifyPassword(h, "correct horse battery staple"); err != nil {
			b.Fatal(err)
		}
	}
}
