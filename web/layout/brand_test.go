package layout_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/web/layout"
)

func TestBrandContactURL(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ contact, want string }{
		{"privacy@operator.example", "mailto:privacy@operator.example"},
		{"https://operator.example/privacy", "https://operator.example/privacy"},
		{"http://operator.example/privacy", ""},
		{"javascript:alert(1)", ""},
		{"Privacy <privacy@operator.example>", ""},
		{"call +44 20 7946 0958", ""},
		{"", ""},
	} {
		if got := (layout.Brand{ProcessorContact: c.contact}).ContactURL(); got != c.want {
			t.Errorf("ContactURL(%q) = %q, want %q", c.contact, got, c.want)
		}
	}
}

func TestBrandCSSAndLogo(t *testing.T) {
	t.Parallel()
	css := string(layout.BrandCSS("#0a5c36"))
	if strings.Count(css, "#0a5c36") < 5 || strings.Contains(css, "%!") {
		t.Errorf("BrandCSS = %s", css)
	}
	w := httptest.NewRecorder()
	if err := layout.WriteLogo(w, verifyd.Logo{Format: "jpeg", Bytes: []byte{0xff, 0xd8}}, "private, max-age=60"); err != nil {
		t.Fatal(err)
	}
	h := w.Result().Header
	if h.Get("Content-Type") != "image/jpeg" || h.Get("X-Content-Type-Options") != "nosniff" ||
		h.Get("Cache-Control") != "private, max-age=60" || !strings.Contains(h.Get("Content-Security-Policy"), "sandbox") ||
		w.Body.Len() != 2 {
		t.Errorf("WriteLogo: %v, %d bytes", h, w.Body.Len())
	}
}
