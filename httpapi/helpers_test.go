package httpapi_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/uuid"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/signature"
)

// client signs requests the way the public PHP SDK does: the HMAC covers
// the body bytes exactly as sent, and for GET the path relative to the
// mount's base URL, unescaped and without the query.
type client struct {
	t       *testing.T
	base    string
	key     string
	secret  string
	signGET func(base, path string) string // what a GET signs; default relative path
}

func newClient(t *testing.T, ts *testserver.Server, i verifyd.Interface, e verifyd.Environment) *client {
	c := ts.Credential(i, e)
	return &client{t: t, base: ts.BaseURL(i, e), key: c.APIKey, secret: c.APISecret}
}

// response is a decoded reply.
type response struct {
	status int
	header http.Header
	raw    []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.raw, &m); err != nil {
		t.Fatalf("response %d is not a JSON object: %v: %s", r.status, err, r.raw)
	}
	return m
}

// wantError asserts SPEC's error body with the given status and message.
func (r response) wantError(t *testing.T, status int, message string) map[string]any {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d; body %s", r.status, status, r.raw)
	}
	m := r.json(t)
	if m["message"] != message || m["status_code"] != float64(status) {
		t.Fatalf("error body = %s, want message %q and status_code %d", r.raw, message, status)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("error Content-Type = %q", ct)
	}
	return m
}

func (c *client) do(method, path string, body []byte, auth string) response {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, raw: raw}
}

// send signs and sends a request; body may be a []byte (sent as is) or a
// value encoded as JSON.
func (c *client) send(method, path string, body any) response {
	c.t.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case []byte:
		raw = b
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			c.t.Fatal(err)
		}
	}
	signed := raw
	if method == http.MethodGet {
		p := path
		if u, err := url.Parse(path); err == nil {
			p = u.Path
		}
		if c.signGET != nil {
			p = c.signGET(c.base, path)
		}
		signed = []byte(p)
	}
	return c.do(method, path, raw, signature.Header(c.key, signature.Sign(c.secret, signed)))
}

func newCustomerID() string { return uuid.NewString() }

// testPNG returns a w×h PNG with some structure, so it is a real image.
func testPNG(t *testing.T, w, h int, noise bool) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 255}
			if noise {
				c = color.RGBA{uint8(r.Uint32()), uint8(r.Uint32()), uint8(r.Uint32()), 255}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func testJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	img, _, err := image.Decode(bytes.NewReader(testPNG(t, w, h, false)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// phpJSON encodes v the way PHP's json_encode does by default: "/" escaped
// as "\/" and non-ASCII as \uXXXX. The server must verify the signature
// over these bytes, never over a re-encoding.
func phpJSON(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, r := range string(raw) {
		switch {
		case r == '/':
			out.WriteString(`\/`)
		case r > 0x7f:
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&out, `\u%04x`, u)
			}
		default:
			out.WriteRune(r)
		}
	}
	return []byte(out.String())
}
