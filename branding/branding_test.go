package branding_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/branding"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/seal"
	"github.com/verifyd/verifyd/sqlstore"
	"github.com/verifyd/verifyd/tenant"
)

// picture returns a w×h image with a gradient, so encoders cannot shrink
// it to nothing.
func picture(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x + y), 200})
		}
	}
	return img
}

func encodePNG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeJPEG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pngHeaderOnly is a PNG whose header claims w×h pixels and whose data is
// one tiny IDAT: a decompression bomb as far as the header goes.
func pngHeaderOnly(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(kind string, data []byte) {
		_ = binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(kind)
		b.Write(data)
		crc := crc32.NewIEEE()
		crc.Write([]byte(kind))
		crc.Write(data)
		_ = binary.Write(&b, binary.BigEndian, crc.Sum32())
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	chunk("IHDR", ihdr)
	chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})
	chunk("IEND", nil)
	return b.Bytes()
}

func TestCheckLogo(t *testing.T) {
	t.Parallel()
	okPNG := encodePNG(t, picture(200, 60))
	okJPEG := encodeJPEG(t, picture(120, 120))
	var gifBytes bytes.Buffer
	if err := gif.Encode(&gifBytes, picture(64, 64), nil); err != nil {
		t.Fatal(err)
	}
	// A valid PNG followed by something else: a polyglot's trick.
	withTrailer := append(append([]byte{}, okPNG...), []byte("<script>alert(1)</script>")...)
	// A large PNG of noise exceeds the byte limit.
	noise := image.NewNRGBA(image.Rect(0, 0, 1000, 1000))
	_, _ = rand.Read(noise.Pix)
	for _, c := range []struct {
		name    string
		raw     []byte
		problem string // a substring; "" means accepted
		format  string
		w, h    int
	}{
		{"PNG", okPNG, "", "png", 200, 60},
		{"JPEG", okJPEG, "", "jpeg", 120, 120},
		{"largest side", encodePNG(t, picture(1024, 20)), "", "png", 1024, 20},
		{"PNG with trailing data", withTrailer, "", "png", 200, 60},
		{"empty", nil, "is empty", "", 0, 0},
		{"too many bytes", encodePNG(t, noise), "larger than 256 KiB", "", 0, 0},
		{"too wide", encodePNG(t, picture(1025, 20)), "larger than 1024×1024", "", 0, 0},
		{"too small", encodePNG(t, picture(15, 40)), "smaller than 16 pixels", "", 0, 0},
		{"bomb dimensions", pngHeaderOnly(60000, 60000), "larger than 1024×1024", "", 0, 0},
		{"header within limits, no pixels", pngHeaderOnly(512, 512), "damaged", "", 0, 0},
		{"GIF", gifBytes.Bytes(), "must be a PNG or JPEG", "", 0, 0},
		{"SVG", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), "must be a PNG or JPEG", "", 0, 0},
		{"truncated PNG", okPNG[:len(okPNG)/2], "incomplete", "", 0, 0},
		{"truncated JPEG", okJPEG[:len(okJPEG)/2], "incomplete", "", 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			logo, problem := branding.CheckLogo(c.raw)
			if c.problem == "" {
				if problem.Text != "" {
					t.Fatalf("CheckLogo refused a good logo: %s", problem.Text)
				}
				if logo.Format != c.format || logo.Width != c.w || logo.Height != c.h {
					t.Errorf("CheckLogo = %s %d×%d, want %s %d×%d", logo.Format, logo.Width, logo.Height, c.format, c.w, c.h)
				}
				// What is kept is re-encoded: it decodes to the same
				// size and is not the uploaded file.
				if bytes.Equal(logo.Bytes, c.raw) || bytes.Contains(logo.Bytes, []byte("<script>")) {
					t.Errorf("CheckLogo kept the uploaded bytes")
				}
				cfg, format, err := image.DecodeConfig(bytes.NewReader(logo.Bytes))
				if err != nil || format != c.format || cfg.Width != c.w || cfg.Height != c.h {
					t.Errorf("re-encoded logo decodes as %s %d×%d (%v)", format, cfg.Width, cfg.Height, err)
				}
				if len(logo.SHA256) != 32 {
					t.Errorf("SHA256 has %d bytes", len(logo.SHA256))
				}
				return
			}
			if !strings.Contains(problem.Text, c.problem) || problem.Code == "" {
				t.Errorf("CheckLogo problem = %+v, want one containing %q, with a code", problem, c.problem)
			}
			if logo.Bytes != nil {
				t.Errorf("a refused logo came with bytes")
			}
		})
	}
}

func TestParseAccentColour(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in, want, problem string
	}{
		{"", "", ""},
		{"#000000", "#000000", ""},
		{"#0A5C36", "#0a5c36", ""},
		{" #1d4ed8 ", "#1d4ed8", ""},
		// #767676 is the lightest grey with 4.5:1 on white; #777777 is not.
		{"#767676", "#767676", ""},
		{"#777777", "", "too light"},
		{"#ffffff", "", "contrast of 1.00:1"},
		{"#ffcc00", "", "too light"},
		{"1d4ed8", "", "#rrggbb"},
		{"#1d4ed", "", "#rrggbb"},
		{"#1d4ed8f", "", "#rrggbb"},
		{"#gggggg", "", "#rrggbb"},
		{"#+12345", "", "#rrggbb"},
		{"red", "", "#rrggbb"},
	} {
		got, problem := branding.ParseAccentColour(c.in)
		if got != c.want || (c.problem == "") != (problem.Text == "") || !strings.Contains(problem.Text, c.problem) {
			t.Errorf("ParseAccentColour(%q) = %q, %q; want %q, a problem containing %q", c.in, got, problem, c.want, c.problem)
		}
	}
	for _, c := range []struct {
		hex  string
		want float64
	}{{"#000000", 21}, {"#ffffff", 1}, {"#767676", 4.54}} {
		if got := branding.ContrastWithWhite(c.hex); got < c.want-0.01 || got > c.want+0.01 {
			t.Errorf("ContrastWithWhite(%s) = %.3f, want %.2f", c.hex, got, c.want)
		}
	}
}

func TestInputValidate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		in     branding.Input
		fields []string
	}{
		{"all good", branding.Input{DisplayName: " Shop ", AccentColour: "#1D4ED8", SupportEmail: "help@shop.example",
			PrivacyURL: "https://shop.example/privacy"}, nil},
		{"all empty", branding.Input{}, nil},
		{"http privacy policy", branding.Input{PrivacyURL: "http://shop.example/privacy"}, []string{"privacy_url"}},
		{"relative privacy policy", branding.Input{PrivacyURL: "/privacy"}, []string{"privacy_url"}},
		{"javascript privacy policy", branding.Input{PrivacyURL: "javascript:alert(1)"}, []string{"privacy_url"}},
		{"bad e-mail", branding.Input{SupportEmail: "Help <help@shop.example>"}, []string{"support_email"}},
		{"long name", branding.Input{DisplayName: strings.Repeat("é", 101)}, []string{"display_name"}},
		{"control character", branding.Input{DisplayName: "Shop\u0007"}, []string{"display_name"}},
		{"light colour and bad logo", branding.Input{AccentColour: "#eeeeee", Logo: []byte("GIF89a")}, []string{"accent_colour", "logo"}},
		{"replace and remove", branding.Input{Logo: []byte("x"), RemoveLogo: true}, []string{"logo"}},
	} {
		b, _, err := c.in.Validate()
		var got []string
		var e *verifyd.Error
		if errors.As(err, &e) {
			if e.Code != verifyd.EInvalid {
				t.Errorf("%s: code %s, want invalid", c.name, e.Code)
			}
			for _, f := range e.Fields {
				got = append(got, f.Field)
			}
		} else if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if strings.Join(got, ",") != strings.Join(c.fields, ",") {
			t.Errorf("%s: bad fields %v, want %v", c.name, got, c.fields)
		}
		if c.name == "all good" && (b.DisplayName != "Shop" || b.AccentColour != "#1d4ed8") {
			t.Errorf("normalised = %+v", b)
		}
	}
}

// TestServiceSetAndNotice runs the use cases on both databases: a change
// is stored, audited with its actor, and the notice names the controller
// (display name, else the business's name), the processor and the
// retention in force.
func TestServiceSetAndNotice(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db, err := sqlstore.Open(ctx, testdb.URL(t, d), slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			key := make([]byte, seal.KeySize)
			_, _ = rand.Read(key)
			sealer, _ := seal.New(key, rand.Reader)
			now := func() time.Time { return time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC) }
			biz, _, err := tenant.New(db, sealer, rand.Reader, now).CreateBusiness(ctx, "Registered Shop Ltd")
			if err != nil {
				t.Fatal(err)
			}
			proc := branding.Processor{Name: "Example Verification Services", Contact: "privacy@verify.example"}
			svc := branding.New(db, now, proc)

			n, err := svc.Notice(ctx, biz.ID)
			if err != nil {
				t.Fatal(err)
			}
			want := branding.Notice{Controller: "Registered Shop Ltd", Processor: proc, RetentionDays: verifyd.DefaultRetentionDays}
			if n != want {
				t.Errorf("Notice without branding = %+v, want %+v", n, want)
			}

			actor := verifyd.Actor{Kind: verifyd.ActorBusinessUser, Name: "owner@shop.example"}
			logo := encodePNG(t, picture(100, 40))
			b, err := svc.Set(verifyd.WithActor(ctx, actor), biz.ID, branding.Input{DisplayName: "Shop",
				AccentColour: "#0A5C36", SupportEmail: "help@shop.example", PrivacyURL: "https://shop.example/privacy", Logo: logo})
			if err != nil {
				t.Fatalf("Set: %v", err)
			}
			if b.DisplayName != "Shop" || b.AccentColour != "#0a5c36" || b.Logo == nil || b.Logo.Width != 100 {
				t.Errorf("Set returned %+v", b)
			}
			stored, err := svc.Logo(ctx, biz.ID)
			if err != nil || !bytes.Equal(stored.SHA256, b.Logo.SHA256) || bytes.Equal(stored.Bytes, logo) {
				t.Errorf("Logo = %v; want the re-encoded logo", err)
			}
			if err := db.SetRetentionDays(ctx, biz.ID, 7); err != nil {
				t.Fatal(err)
			}
			n, err = svc.Notice(ctx, biz.ID)
			if err != nil {
				t.Fatal(err)
			}
			if n.Controller != "Shop" || n.RetentionDays != 7 || n.PrivacyURL != "https://shop.example/privacy" ||
				n.SupportEmail != "help@shop.example" || len(n.LogoVersion) != 12 || n.Processor != proc {
				t.Errorf("Notice = %+v", n)
			}
			entries, err := db.AuditEntries(ctx, verifyd.AuditFilter{BusinessID: biz.ID})
			if err != nil {
				t.Fatal(err)
			}
			last := entries[len(entries)-1]
			if last.Action != verifyd.AuditBrandingSet || last.Actor != actor || !strings.Contains(last.Detail, "logo=png 100x40") ||
				!strings.Contains(last.Detail, "support_email=changed") || strings.Contains(last.Detail, "@") {
				t.Errorf("audit entry = %+v, want the support address's change without the address", last)
			}

			// A refused change stores nothing.
			if _, err := svc.Set(ctx, biz.ID, branding.Input{DisplayName: "Other", AccentColour: "#ffffff"}); verifyd.ErrorCodeOf(err) != verifyd.EInvalid {
				t.Errorf("Set(light colour) = %v, want invalid", err)
			}
			if got, _ := svc.Get(ctx, biz.ID); got.DisplayName != "Shop" {
				t.Errorf("a refused change was stored: %+v", got)
			}
			// Removing the logo keeps the rest.
			if got, err := svc.Set(ctx, biz.ID, branding.Input{DisplayName: "Shop", RemoveLogo: true}); err != nil || got.Logo != nil {
				t.Errorf("Set(RemoveLogo) = %+v, %v", got, err)
			}
			// The audit log says whether the support address changed, never
			// which it is.
			for _, step := range []struct{ email, want string }{
				{"", "support_email=unchanged"}, // it was removed with the logo above
				{"other@shop.example", "support_email=changed"},
				{"other@shop.example", "support_email=unchanged"},
				{"", "support_email=removed"},
			} {
				if _, err := svc.Set(ctx, biz.ID, branding.Input{DisplayName: "Shop", SupportEmail: step.email}); err != nil {
					t.Fatal(err)
				}
				entries, err := db.AuditEntries(ctx, verifyd.AuditFilter{BusinessID: biz.ID})
				if err != nil {
					t.Fatal(err)
				}
				if d := entries[len(entries)-1].Detail; !strings.Contains(d, step.want) || strings.Contains(d, "@") {
					t.Errorf("support e-mail %q: audit detail %q, want %s and no address", step.email, d, step.want)
				}
			}
			if _, err := svc.Set(ctx, "biz_unknown", branding.Input{DisplayName: "Shop"}); !errors.Is(err, verifyd.ErrNotFound) {
				t.Errorf("Set(unknown business) = %v, want not found", err)
			}
			if _, err := svc.Notice(ctx, "biz_unknown"); !errors.Is(err, verifyd.ErrNotFound) {
				t.Errorf("Notice(unknown) = %v, want not found", err)
			}
		})
	}
}
