// Package htmldoc renders synthetic identity documents as HTML and CSS in
// headless Chromium, for tests: a second generator whose habits are not
// those of internal/docgen, to measure how the readers generalise.
//
// docgen draws every document in one layout per format with the Go fonts,
// labels above values and its own date styles, and the visual-zone reader
// (package viz) was fitted while looking at its failures. The layouts here
// are modelled on real designs instead (ICAO 9303 Parts 4–6 and national
// practice: British, German, Dutch and US passports; German, French,
// Spanish and Italian identity cards; a residence permit; EU, UK and US
// driving licences), with their own label conventions (numbered fields,
// bilingual and trilingual labels, labels left of values), date styles
// ("12 JAN /JANV 90", "12 MAA/MAR 1990", "12 01 1990", "01/12/1990"),
// system fonts (DejaVu, Liberation) and an MRZ in OCR-B laid out and
// rasterised by Chromium, not by docgen's rasteriser. Cards whose MRZ is on
// the back are rendered as two sides.
//
// Render returns docgen.Documents, so docgen.Photograph photographs them
// with every degradation except Degrade.Printer (Reprint erases the MRZ
// where docgen would have drawn its glyphs, which is not where Chromium
// drew them).
//
// The layouts are still ours: they follow the published designs from
// memory, not specimens, and they print the fields the generator chose.
package htmldoc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"math"
	"os"
	"os/exec"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/mrz"
)

// ErrNoBrowser is returned by Start when Chromium is not installed; tests
// turn it into a skip.
var ErrNoBrowser = errors.New("htmldoc: Chromium is not installed (apt-get install -y chromium)")

// DefaultPxPerMM is the resolution of Render when Spec.PxPerMM is zero
// (≈ 356 dpi, a phone photo's resolution on a document filling the frame).
const DefaultPxPerMM = 14

// cssPxPerMM is CSS's fixed 96 px per inch.
const cssPxPerMM = 96 / 25.4

// Renderer is one headless Chromium tab. It is not safe for concurrent use.
type Renderer struct {
	ctx     context.Context
	cancel  []context.CancelFunc
	profile string
}

// Start launches Chromium. Close it when done.
func Start() (*Renderer, error) {
	path, err := exec.LookPath("chromium")
	if err != nil {
		if _, statErr := os.Stat("/usr/bin/chromium"); statErr != nil {
			return nil, ErrNoBrowser
		}
		path = "/usr/bin/chromium"
	}
	profile, err := os.MkdirTemp("", "verifyd-htmldoc-")
	if err != nil {
		return nil, err
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(profile),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true), chromedp.Flag("mute-audio", true),
		// Grey-level antialiasing, as a print is: subpixel colour fringes
		// are a property of LCD screens, not of documents.
		chromedp.Flag("disable-lcd-text", true), chromedp.Flag("font-render-hinting", "none"))
	ctx, cancelTab := chromedp.NewContext(alloc)
	r := &Renderer{ctx: ctx, cancel: []context.CancelFunc{cancelTab, cancelAlloc}, profile: profile}
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		r.Close()
		return nil, fmt.Errorf("htmldoc: start Chromium: %w", err)
	}
	return r, nil
}

func ptr[T any](v T) *T { return &v }

// Close stops Chromium and removes its profile.
func (r *Renderer) Close() {
	for _, c := range r.cancel {
		c()
	}
	os.RemoveAll(r.profile)
}

// Spec describes a document to render.
type Spec struct {
	// Layout is one of Layouts (or LicenceLayouts).
	Layout string
	// Fields are printed in the visual zone and, through mrz.Compose
	// unless Lines is set, in the MRZ. Layouts set IssuingState (and the
	// nationality of their citizens' documents) to their country when
	// Fields leave them empty; callers that need the MRZ to agree compose
	// Lines from Fields after Normalize.
	Fields mrz.Fields
	// Lines, when set, are printed as the MRZ (a forgery's genuine zone
	// under altered printed data).
	Lines []string
	// Seed chooses colours, the background pattern, small shifts of the
	// fields, the place of birth and the authority.
	Seed uint64
	// PxPerMM is the resolution; 0 means DefaultPxPerMM.
	PxPerMM float64
}

// Rendered is a rendered document: Front, and Back when the layout puts
// the MRZ (or anything the reader needs) on a second side.
type Rendered struct {
	Front, Back *docgen.Document
	// HTML is the page that was rendered, for looking at a miss.
	HTML string
}

// Normalize returns f with the layout's country, document code and
// format, so that an MRZ composed from it fits the layout.
func Normalize(layout string, f mrz.Fields) (mrz.Fields, error) {
	l, ok := layouts[layout]
	if !ok {
		return f, fmt.Errorf("htmldoc: no layout %q", layout)
	}
	f.Format = l.format
	if l.state != "" {
		f.IssuingState = l.state
		if l.citizens {
			f.Nationality = l.state
		}
	}
	if l.code != "" {
		f.DocumentCode = l.code
	}
	if l.format == mrz.TD1 && len(f.DocumentNumber) > 9 {
		f.DocumentNumber = f.DocumentNumber[:9]
	}
	return f, nil
}

// Format returns the MRZ format of a layout (0 for a licence).
func Format(layout string) mrz.Format {
	if l, ok := layouts[layout]; ok && !l.licence {
		return l.format
	}
	return 0
}

// box is a rectangle in CSS pixels as the page reports it.
type box struct{ X, Y, W, H float64 }

// sideInfo is what the page reports of one side.
type sideInfo struct {
	Card box
	// MRZ holds the box of each MRZ line's text, empty when the side has
	// no MRZ; Em its font size in CSS pixels.
	MRZ []box
	Em  float64
}

// fitScript sets each MRZ line's font size so that its characters lie at
// the ICAO pitch (2.54 mm), then reports the sides' boxes.
const fitScript = `(async () => {
  await document.fonts.ready;
  const pitch = 2.54 * 96 / 25.4;
  for (const s of document.querySelectorAll('.mrz span')) {
    const fs = parseFloat(getComputedStyle(s).fontSize);
    const w = s.getBoundingClientRect().width;
    s.style.fontSize = (fs * pitch * s.textContent.length / w) + 'px';
  }
  const r = e => { const b = e.getBoundingClientRect(); return {X: b.x, Y: b.y, W: b.width, H: b.height}; };
  return JSON.stringify([...document.querySelectorAll('.card')].map(c => ({
    Card: r(c),
    MRZ: [...c.querySelectorAll('.mrz span')].map(r),
    Em: c.querySelector('.mrz span') ? parseFloat(getComputedStyle(c.querySelector('.mrz span')).fontSize) : 0,
  })));
})()`

// renderTimeout bounds one Render: a document renders in well under a
// second.
const renderTimeout = 30 * time.Second

// Render draws the document spec describes.
func (r *Renderer) Render(spec Spec) (*Rendered, error) {
	l, ok := layouts[spec.Layout]
	if !ok {
		return nil, fmt.Errorf("htmldoc: no layout %q", spec.Layout)
	}
	f, _ := Normalize(spec.Layout, spec.Fields)
	lines := spec.Lines
	if lines == nil && !l.licence {
		var err error
		if lines, err = mrz.Compose(f); err != nil {
			return nil, fmt.Errorf("htmldoc: %w", err)
		}
	}
	ppm := spec.PxPerMM
	if ppm <= 0 {
		ppm = DefaultPxPerMM
	}
	doc := newPage(l, f, lines, spec.Seed)
	html := doc.html()
	dsf := ppm / cssPxPerMM
	js, _ := json.Marshal(html)
	// A page that never settles (fonts, a stuck screenshot) fails this
	// document instead of hanging the test until go test's own timeout.
	ctx, cancel := context.WithTimeout(r.ctx, renderTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: 600, Height: 900, DeviceScaleFactor: dsf})
		return err
	}), chromedp.Evaluate[chromedp.Void](`document.open(); document.write(`+string(js)+`); document.close();`)); err != nil {
		return nil, fmt.Errorf("htmldoc: render %s: %w", spec.Layout, err)
	}
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](fitScript, chromedp.EvalAwaitPromise))
	if err != nil {
		return nil, fmt.Errorf("htmldoc: render %s: %w", spec.Layout, err)
	}
	var sides []sideInfo
	if err := json.Unmarshal([]byte(raw), &sides); err != nil || len(sides) == 0 {
		return nil, fmt.Errorf("htmldoc: render %s: the page reported %q", spec.Layout, raw)
	}
	out := &Rendered{HTML: html}
	for i, s := range sides {
		d, err := r.shoot(ctx, s, l, lines, dsf)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			out.Front = d
		} else {
			out.Back = d
		}
	}
	return out, nil
}

// shoot screenshots one side into a docgen.Document.
func (r *Renderer) shoot(ctx context.Context, s sideInfo, l *layout, lines []string, dsf float64) (*docgen.Document, error) {
	shot, err := chromedp.Run(ctx, func(ctx context.Context, t *chromedp.Target) ([]byte, error) {
		res, err := cdp.Call(ctx, t, page.CaptureScreenshot, page.CaptureScreenshotParams{
			Format: page.CaptureScreenshotFormatPng, FromSurface: ptr(true), CaptureBeyondViewport: ptr(true),
			Clip: &page.Viewport{X: s.Card.X, Y: s.Card.Y, Width: s.Card.W, Height: s.Card.H, Scale: 1}})
		if err != nil {
			return nil, err
		}
		return res.Data, nil
	})
	if err != nil {
		return nil, fmt.Errorf("htmldoc: screenshot: %w", err)
	}
	src, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		return nil, fmt.Errorf("htmldoc: screenshot: %w", err)
	}
	img := image.NewRGBA(image.Rect(0, 0, src.Bounds().Dx(), src.Bounds().Dy()))
	draw.Draw(img, img.Bounds(), src, src.Bounds().Min, draw.Src)
	ppm := float64(img.Rect.Dx()) / (s.Card.W / cssPxPerMM)
	cutCorners(img, l.corner*ppm)
	d := &docgen.Document{Image: img, Format: l.format, PxPerMM: ppm}
	if len(s.MRZ) == 0 {
		return d, nil
	}
	d.Lines = append([]string(nil), lines...)
	k := float64(img.Rect.Dx()) / s.Card.W // device pixels per CSS pixel
	d.Pitch = docgen.MRZPitchMM * ppm
	d.EmPx = s.Em * k
	rect := image.Rectangle{}
	for i, b := range s.MRZ {
		// The line box is the em box; capitals and digits fill its upper
		// ~0.72 em above a baseline ~0.2 em from its bottom.
		base := (b.Y - s.Card.Y + b.H/2 + 0.5*0.72*s.Em - 0.36*0.72*s.Em) * k
		d.Baselines = append(d.Baselines, base)
		cell := image.Rect(int(math.Floor((b.X-s.Card.X)*k)), int(math.Floor(base-0.74*d.EmPx)),
			int(math.Ceil((b.X-s.Card.X+b.W)*k)), int(math.Ceil(base+0.05*d.EmPx)))
		if i == 0 {
			d.MRZLeft = (b.X - s.Card.X) * k
			rect = cell
		} else {
			rect = rect.Union(cell)
		}
	}
	d.MRZ = rect.Intersect(img.Bounds())
	return d, nil
}

// cutCorners makes img transparent outside a rectangle with corners of
// radius rad, as docgen's documents are: the screenshot of a card with
// rounded corners holds the page's white there.
func cutCorners(img *image.RGBA, rad float64) {
	b := img.Bounds()
	w, h := float64(b.Dx()), float64(b.Dy())
	n := int(math.Ceil(rad)) + 1
	for y := b.Min.Y; y < b.Max.Y; y++ {
		if y >= b.Min.Y+n && y < b.Max.Y-n {
			continue
		}
		for x := b.Min.X; x < b.Max.X; x++ {
			px, py := float64(x-b.Min.X)+0.5, float64(y-b.Min.Y)+0.5
			cx := math.Min(math.Max(px, rad), w-rad)
			cy := math.Min(math.Max(py, rad), h-rad)
			a := math.Min(math.Max(rad-math.Hypot(px-cx, py-cy)+0.5, 0), 1)
			if a == 1 {
				continue
			}
			i := img.PixOffset(x, y)
			for k := range 4 {
				img.Pix[i+k] = uint8(float64(img.Pix[i+k]) * a)
			}
		}
	}
}
