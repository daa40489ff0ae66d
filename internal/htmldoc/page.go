package htmldoc

import (
	"fmt"
	"html"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/verifyd/verifyd/mrz"
)

// layout is one document design.
type layout struct {
	format  mrz.Format
	licence bool
	// state is the issuing state; citizens marks documents issued to the
	// state's own nationals; code is the MRZ document code.
	state    string
	citizens bool
	code     string
	// w, h and corner are the card's size and corner radius in mm.
	w, h, corner float64
	// font is the CSS font-family of the visual zone.
	font string
	// css is the layout's own style sheet (label and value sizes).
	css string
	// front and back return the sides' inner HTML; back is nil for a
	// one-sided document (a passport's data page).
	front, back func(p *pg) string
}

// pg is one document being written: its data and the helpers layouts use.
type pg struct {
	l     *layout
	f     mrz.Fields
	lines []string
	rng   *rand.Rand
	hue   float64
	// issue is the date of issue; place and authority are printed where
	// layouts have them.
	issue            mrz.Date
	place, authority string
}

var places = []string{"LISBOA", "MILANO", "LYON", "GRAZ", "UTRECHT", "OSLO", "PORTO", "GDANSK", "SEVILLA", "CORK",
	"TURKU", "BRNO", "KÖLN", "ZÜRICH", "GÖTEBORG", "MÁLAGA", "NANTES", "ROMA"}

func newPage(l *layout, f mrz.Fields, lines []string, seed uint64) *pg {
	rng := rand.New(rand.NewPCG(seed, 0x4a7d0c))
	p := &pg{l: l, f: f, lines: lines, rng: rng, hue: rng.Float64() * 360}
	years := 10
	if f.BirthDate.Valid() && f.ExpiryDate.Valid() && mrz.Age(f.BirthDate, f.ExpiryDate.Time()) < 23 {
		years = 5
	}
	if l.licence {
		years = 15
	}
	if f.ExpiryDate.Valid() {
		p.issue = mrz.Date{Year: f.ExpiryDate.Year - years, Month: f.ExpiryDate.Month, Day: min(f.ExpiryDate.Day, 28)}
	}
	p.place = places[rng.IntN(len(places))]
	p.authority = []string{"MINISTRY OF INTERIOR", "STADT " + p.place, "PRÉFECTURE", "HMPO"}[rng.IntN(4)]
	return p
}

// html is the whole page: the style sheet and each side as a .card.
func (p *pg) html() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><meta charset="utf-8"><style>`)
	fmt.Fprintf(&b, `html,body{margin:0;padding:0;background:#fff}
.card{position:relative;width:%[1]gmm;height:%[2]gmm;margin:0 0 4mm 0;overflow:hidden;font-family:%[3]s;color:#1d1d28;
 background-color:hsl(%[4]g,35%%,90%%)}
.bg{position:absolute;inset:0}
.f{position:absolute;white-space:nowrap}
.l{color:#3a3d52;font-weight:normal}
.v{font-weight:bold}
.mrz{position:absolute;left:0;width:100%%;font-family:'OCR B';color:#141418;white-space:pre}
.mrz div{line-height:4.23mm;height:4.23mm;text-align:center}
.mrz span{font-size:3mm;letter-spacing:0;font-weight:normal}
.clear{position:absolute;left:0;width:100%%;background:hsla(%[4]g,30%%,94%%,0.85)}
.photo{position:absolute;border-radius:0.6mm;background:
 radial-gradient(ellipse 27%% 31%% at 50%% 40%%,#8c8f96 97%%,transparent 100%%),
 radial-gradient(ellipse 58%% 34%% at 50%% 100%%,#767980 97%%,transparent 100%%),
 linear-gradient(#e4e9ec,#c8d0d6)}
.title{position:absolute;font-weight:bold;letter-spacing:0.05em;white-space:nowrap}
`, p.l.w, p.l.h, p.l.font, math.Round(p.hue))
	b.WriteString(p.l.css)
	b.WriteString(`</style></head><body>`)
	sides := []func(*pg) string{p.l.front}
	if p.l.back != nil {
		sides = append(sides, p.l.back)
	}
	for _, side := range sides {
		b.WriteString(`<div class="card">`)
		b.WriteString(p.background())
		b.WriteString(side(p))
		b.WriteString(`</div>`)
	}
	b.WriteString(`</body></html>`)
	return b.String()
}

// background is a guilloche: a few families of sine waves in an SVG and
// two rosettes of repeating radial gradients, as security printing draws
// fine line patterns (fainter than docgen's, different in kind).
func (p *pg) background() string {
	w, h := p.l.w, p.l.h
	var paths strings.Builder
	for fam := range 3 {
		period := 6 + 10*p.rng.Float64()
		amp := 1 + 3*p.rng.Float64()
		step := 2 + 2*p.rng.Float64()
		phase := p.rng.Float64() * 6
		hue := p.hue + 40*p.rng.NormFloat64()
		for y0 := -amp; y0 < h+amp; y0 += step {
			var d strings.Builder
			for x := 0.0; x <= w+1.5; x += 1.5 {
				y := y0 + amp*math.Sin(2*math.Pi*x/period+phase+y0*0.15*float64(fam+1))
				if x == 0 {
					fmt.Fprintf(&d, "M%.1f %.2f", x, y)
				} else {
					fmt.Fprintf(&d, "L%.1f %.2f", x, y)
				}
			}
			fmt.Fprintf(&paths, `<path d="%s" stroke="hsl(%.0f,45%%,62%%)" stroke-width="0.07" fill="none" opacity="0.55"/>`, d.String(), hue)
		}
	}
	cx, cy := w*(0.5+0.4*p.rng.Float64()), h*(0.2+0.6*p.rng.Float64())
	return fmt.Sprintf(`<svg class="bg" viewBox="0 0 %g %g" width="%gmm" height="%gmm" preserveAspectRatio="none">%s</svg>`+
		`<div class="bg" style="background:repeating-radial-gradient(circle at %.1fmm %.1fmm,transparent 0,transparent 0.9mm,hsla(%.0f,50%%,55%%,0.18) 1mm,transparent 1.1mm),`+
		`linear-gradient(%.0fdeg,hsla(%.0f,60%%,80%%,0.35),transparent 60%%)"></div>`,
		w, h, w, h, paths.String(), cx, cy, p.hue+90, 90+180*p.rng.Float64(), p.hue+60)
}

// jit is a small random shift (mm) of a field: real documents are printed
// with registration tolerances, and templates must not rely on exact
// places.
func (p *pg) jit() float64 { return 0.4 * (2*p.rng.Float64() - 1) }

// at places inner at (x, y) mm from the card's top left.
func (p *pg) at(x, y float64, inner string) string {
	return fmt.Sprintf(`<div class="f" style="left:%.2fmm;top:%.2fmm">%s</div>`, x+p.jit(), y+p.jit(), inner)
}

// above is a label with its value under it.
func above(label, value string) string {
	return `<div class="l">` + html.EscapeString(label) + `</div><div class="v">` + html.EscapeString(value) + `</div>`
}

// beside is a label with its value on the same line.
func beside(label, value string) string {
	return `<span class="l">` + html.EscapeString(label) + `</span>&nbsp;&nbsp;<span class="v">` + html.EscapeString(value) + `</span>`
}

func text(cls, s string) string {
	return `<div class="` + cls + `">` + html.EscapeString(s) + `</div>`
}

// photo is the portrait placeholder (faces are not measured here).
func photo(x, y, w, h float64) string {
	return fmt.Sprintf(`<div class="photo" style="left:%gmm;top:%gmm;width:%gmm;height:%gmm"></div>`, x, y, w, h)
}

// title prints a heading at (x, y) mm.
func title(x, y, size float64, color, s string) string {
	return fmt.Sprintf(`<div class="title" style="left:%gmm;top:%gmm;font-size:%gmm;color:%s">%s</div>`, x, y, size, color, html.EscapeString(s))
}

// mrz prints the machine-readable zone with its last line's centre
// bottom mm above the card's lower edge and ICAO's 4.23 mm between lines;
// fitScript sets the font size so that the pitch is 2.54 mm.
func (p *pg) mrz(bottom float64) string {
	if len(p.lines) == 0 {
		return ""
	}
	n := float64(len(p.lines))
	top := p.l.h - bottom - (n-0.5)*4.23
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="clear" style="top:%.2fmm;height:%.2fmm"></div>`, top-1.5, p.l.h-top+1.5)
	fmt.Fprintf(&b, `<div class="mrz" style="top:%.2fmm">`, top)
	for _, l := range p.lines {
		b.WriteString(`<div><span>` + html.EscapeString(l) + `</span></div>`)
	}
	b.WriteString(`</div>`)
	return b.String()
}

var (
	monthsEN = [...]string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}
	monthsFR = [...]string{"JANV", "FÉVR", "MARS", "AVR", "MAI", "JUIN", "JUIL", "AOÛT", "SEPT", "OCT", "NOV", "DÉC"}
	monthsNL = [...]string{"JAN", "FEB", "MAA", "APR", "MEI", "JUN", "JUL", "AUG", "SEP", "OKT", "NOV", "DEC"}
	monthsUS = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
)

// Date styles of the layouts, as the documents they follow print them.
func dateUK(d mrz.Date) string { // 12 JAN /JANV 90
	return fmt.Sprintf("%02d %s /%s %02d", d.Day, monthsEN[d.Month-1], monthsFR[d.Month-1], d.Year%100)
}
func dateNL(d mrz.Date) string { // 12 MAA/MAR 1990
	return fmt.Sprintf("%02d %s/%s %04d", d.Day, monthsNL[d.Month-1], monthsEN[d.Month-1], d.Year)
}
func dateUS(d mrz.Date) string { // 12 Jan 1990
	return fmt.Sprintf("%02d %s %04d", d.Day, monthsUS[d.Month-1], d.Year)
}
func dateDots(d mrz.Date) string   { return fmt.Sprintf("%02d.%02d.%04d", d.Day, int(d.Month), d.Year) }
func dateSpaces(d mrz.Date) string { return fmt.Sprintf("%02d %02d %04d", d.Day, int(d.Month), d.Year) }
func dateDashes(d mrz.Date) string { return fmt.Sprintf("%02d-%02d-%04d", d.Day, int(d.Month), d.Year) }
func dateISO(d mrz.Date) string    { return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day) }
func dateMDY(d mrz.Date) string    { return fmt.Sprintf("%02d/%02d/%04d", int(d.Month), d.Day, d.Year) }

// sex is the printed sex ("X" when the MRZ leaves it unspecified).
func (p *pg) sex() string {
	if p.f.Sex == "" || p.f.Sex == "<" {
		return "X"
	}
	return p.f.Sex
}
