package cli_test

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verifyd/verifyd/internal/cli"
	"github.com/verifyd/verifyd/internal/testserver"
)

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns
// their paths and a pool that trusts the certificate.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "verifyd test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// TestServeTLS: with --tls-cert and --tls-key the service answers HTTPS
// (the camera of the hosted pages needs a secure origin) and says so.
func TestServeTLS(t *testing.T) {
	t.Parallel()
	certFile, keyFile, pool := selfSigned(t)
	env := testEnv(t, "sqlite")
	env["VERIFYD_LISTEN"] = "127.0.0.1:0"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out testserver.Buffer
	done := make(chan error, 1)
	go func() {
		done <- cli.Run(ctx, []string{"serve", "--tls-cert", certFile, "--tls-key", keyFile, "--models-dir", t.TempDir(), "--models-fetch=false", "--ocr", "off"},
			func(k string) string { return env[k] }, nil, &out, io.Discard)
	}()
	var origin string
	for deadline := time.Now().Add(20 * time.Second); origin == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		sc := bufio.NewScanner(strings.NewReader(out.String()))
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "verifyd listening on "); ok {
				origin = rest
			}
		}
	}
	if !strings.HasPrefix(origin, "https://") {
		t.Fatalf("origin %q, want https; output:\n%s", origin, out.String())
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	res, err := client.Get(origin + "/healthz")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("healthz over TLS: %v %v", err, res)
	}
	res.Body.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	// One without the other is a usage error.
	_, _, err = run(t, env, "serve", "--tls-cert", certFile)
	if err == nil || !strings.Contains(err.Error(), "usage") && cli.ExitCode(err) != 2 {
		t.Fatalf("--tls-cert alone: %v", err)
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"1GiB": 1 << 30, "512MiB": 512 << 20, "300MB": 300e6, "0": 0, "4096": 4096, " 2 GiB ": 2 << 30} {
		if got, err := cli.ParseBytes(in); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1MiB", "9999999999GiB", "1.5GiB"} {
		if _, err := cli.ParseBytes(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}
