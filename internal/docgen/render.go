package docgen

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"strings"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/vector"

	"github.com/verifyd/verifyd/mrz"
)

// DefaultPxPerMM is the resolution of Render when Spec.PxPerMM is zero
// (12 px/mm ≈ 305 dpi: a TD3 page is 1500×1056 pixels).
const DefaultPxPerMM = 12

// MRZPitchMM is the ICAO 9303 character pitch of the MRZ (10 characters per
// inch, OCR-B size I).
const MRZPitchMM = 2.54

// Spec describes a synthetic document.
type Spec struct {
	// Format selects the layout; zero means Fields.Format, or the shape of
	// Lines.
	Format mrz.Format
	// Fields are printed in the visual zone and, through mrz.Compose, in
	// the MRZ.
	Fields mrz.Fields
	// Lines, when set, are printed as the MRZ instead of the composition
	// of Fields (e.g. to print a zone with a wrong check digit). Each line
	// must have the format's width and only MRZ characters.
	Lines []string
	// Face is drawn in the photo box; nil draws a synthetic face.
	Face image.Image
	// Seed chooses colours, the background pattern and the synthetic face.
	Seed uint64
	// PxPerMM is the resolution; 0 means DefaultPxPerMM.
	PxPerMM float64
	// Licence draws a driving licence instead: an ID-1 card without an MRZ
	// whose fields are numbered as on the EU model (1 surname, 2 given
	// names, 3 birth date, 4a issue, 4b expiry, 4c authority, 5 number,
	// 9 categories). Lines is ignored.
	Licence bool
	// DateStyle chooses how the visual zone prints dates: DateNamed
	// "07 MAR 1990", DateDotted "07.03.1990", DateSlashed "07/03/1990",
	// DateBilingual "07 MARS/MAR 90". Licences use DateDotted when zero.
	DateStyle DateStyle
	// Labels is the language of the visual zone's field labels: "" (the
	// bilingual English/French of many passports), "de", "fr", "es", "it".
	Labels string
}

// labelSets name the visual zone's fields in several languages, as issuers
// print them (abbreviated, with or without the English).
var labelSets = map[string]map[string]string{
	"": {"surname": "Surname / Nom", "given": "Given names / Prénoms", "nationality": "Nationality", "birth": "Date of birth",
		"sex": "Sex", "number": "Document no.", "number2": "Document No.", "passport": "Passport No.", "expiry": "Date of expiry", "issue": "Date of issue",
		"place": "Place of birth", "authority": "Authority", "type": "Type", "code": "Code"},
	"de": {"surname": "Name", "given": "Vornamen", "nationality": "Staatsangehörigkeit", "birth": "Geburtstag",
		"sex": "Geschlecht", "number": "Ausweis-Nr.", "passport": "Pass-Nr.", "expiry": "Gültig bis", "issue": "Ausstellungsdatum",
		"place": "Geburtsort", "authority": "Behörde", "type": "Typ", "code": "Kode"},
	"fr": {"surname": "Nom", "given": "Prénoms", "nationality": "Nationalité", "birth": "Date de naiss.",
		"sex": "Sexe", "number": "N° du document", "passport": "Passeport n°", "expiry": "Valable jusqu'au", "issue": "Délivré le",
		"place": "Lieu de naissance", "authority": "Autorité", "type": "Type", "code": "Code"},
	"es": {"surname": "Apellidos", "given": "Nombre", "nationality": "Nacionalidad", "birth": "Fecha de nacimiento",
		"sex": "Sexo", "number": "Núm. soporte", "passport": "N° pasaporte", "expiry": "Válido hasta", "issue": "Fecha de expedición",
		"place": "Lugar de nacimiento", "authority": "Autoridad", "type": "Tipo", "code": "Código"},
	"it": {"surname": "Cognome", "given": "Nome", "nationality": "Cittadinanza", "birth": "Data di nascita",
		"sex": "Sesso", "number": "Documento n.", "passport": "Passaporto n.", "expiry": "Scadenza", "issue": "Data di rilascio",
		"place": "Luogo di nascita", "authority": "Autorità", "type": "Tipo", "code": "Codice"},
}

// DateStyle is a way documents print dates.
type DateStyle int

// The date styles.
const (
	DateNamed DateStyle = iota
	DateDotted
	DateSlashed
	DateBilingual
)

// Document is a flat, perfectly aligned rendering of a document ("a scan").
type Document struct {
	// Image is transparent outside the document's rounded corners.
	Image   *image.RGBA
	Format  mrz.Format
	Lines   []string
	PxPerMM float64
	// Pitch is the MRZ character pitch in pixels; EmPx the OCR-B em.
	Pitch, EmPx float64
	// MRZLeft is the x of the left edge of the first character cell;
	// Baselines the y of each MRZ line's baseline.
	MRZLeft   float64
	Baselines []float64
	// MRZ bounds every character cell of the zone (cell height: the
	// tallest OCR-B glyph).
	MRZ image.Rectangle
}

// layout is a document design in millimetres.
type layout struct {
	w, h, corner       float64
	photo              [4]float64 // x0, y0, x1, y1
	fx0, fy0, fx1      float64    // field area
	label, value       float64    // em sizes of the printed text
	title              string
	mrzCentres         []float64 // y of each MRZ line's centre, from the top
	mrzLeft, mrzBottom float64
}

// Geometry approximating ICAO 9303: ID-1 (85.6×54 mm), ID-2 (105×74 mm) and
// ID-3 (125×88 mm) documents, MRZ at 2.54 mm pitch centred horizontally,
// lines 4.23 mm apart (6 lines per inch) in the bottom zone.
func layoutFor(f mrz.Format) layout {
	const ls = 4.23
	switch f {
	case mrz.TD1:
		return layout{w: 85.6, h: 54, corner: 3.18, photo: [4]float64{3.5, 9.5, 25.5, 37},
			fx0: 28, fy0: 10, fx1: 83, label: 1.35, value: 2.3, title: "IDENTITY CARD",
			mrzCentres: []float64{54 - 5.1 - 2*ls, 54 - 5.1 - ls, 54 - 5.1}, mrzLeft: (85.6 - 30*MRZPitchMM) / 2}
	case mrz.TD2:
		return layout{w: 105, h: 74, corner: 3.18, photo: [4]float64{5, 12, 33, 50},
			fx0: 36, fy0: 12.5, fx1: 101, label: 1.5, value: 2.6, title: "IDENTITY CARD",
			mrzCentres: []float64{74 - 6.35 - ls, 74 - 6.35}, mrzLeft: (105 - 36*MRZPitchMM) / 2}
	default:
		return layout{w: 125, h: 88, corner: 2, photo: [4]float64{6, 14, 40, 58},
			fx0: 44, fy0: 14.5, fx1: 121, label: 1.6, value: 2.8, title: "PASSPORT",
			mrzCentres: []float64{88 - 6.35 - ls, 88 - 6.35}, mrzLeft: (125 - 44*MRZPitchMM) / 2}
	}
}

// SizeMM returns the width and height of the document of format f.
func SizeMM(f mrz.Format) (w, h float64) {
	l := layoutFor(f)
	return l.w, l.h
}

// Render draws the document described by spec.
func Render(spec Spec) (*Document, error) {
	ocrb, err := OCRB()
	if err != nil {
		return nil, err
	}
	format := spec.Format
	if format == 0 {
		format = spec.Fields.Format
	}
	if spec.Licence {
		return renderLicence(spec)
	}
	lines := spec.Lines
	if lines == nil {
		if format != 0 && spec.Fields.Format != format {
			spec.Fields.Format = format
		}
		if lines, err = mrz.Compose(spec.Fields); err != nil {
			return nil, fmt.Errorf("docgen: %w", err)
		}
	}
	if format == 0 {
		switch {
		case len(lines) == 3:
			format = mrz.TD1
		case len(lines) == 2 && len(lines[0]) == 36:
			format = mrz.TD2
		default:
			format = mrz.TD3
		}
	}
	if len(lines) != format.Lines() {
		return nil, fmt.Errorf("docgen: %d MRZ lines for %v", len(lines), format)
	}
	for _, l := range lines {
		if len(l) != format.Width() {
			return nil, fmt.Errorf("docgen: MRZ line %q is not %d characters long", l, format.Width())
		}
		if strings.Trim(l, MRZAlphabet) != "" {
			return nil, errors.New("docgen: MRZ line has characters outside A-Z 0-9 <: " + l)
		}
	}
	ppm := spec.PxPerMM
	if ppm <= 0 {
		ppm = DefaultPxPerMM
	}
	rng := rand.New(rand.NewPCG(spec.Seed, 0x5eed_d0c))
	lay := layoutFor(format)
	mm := func(v float64) float64 { return v * ppm }
	state := spec.Fields.IssuingState
	if state == "" && len(lines[0]) >= 5 {
		state = strings.TrimRight(lines[0][2:5], "<")
	}
	img, ink, labelInk := startCard(spec, lay, ppm, rng, lay.title, state)
	H := img.Rect.Dy()
	drawFields(img, lay, ppm, spec.Fields, lines, format, rng, ink, labelInk, spec.DateStyle, labelSets[spec.Labels])

	// Signature under the photo.
	sy := mm(lay.photo[3]) + mm(2.5)
	if sy < mm(lay.mrzCentres[0]-4) {
		x0 := mm(lay.photo[0] + 2)
		x1 := mm(lay.photo[2] - 2)
		pen := color.RGBA{30, 40, 110, 255}
		for i := 0; i < 3; i++ {
			a := x0 + (x1-x0)*float64(i)/3
			b := a + (x1-x0)/3
			strokeCurve(img, [4][2]float64{{a, sy}, {a + (b-a)*0.3, sy - mm(2.5*rng.Float64())},
				{a + (b-a)*0.6, sy + mm(2*rng.Float64())}, {b, sy + mm(rng.Float64()-0.5)}}, mm(0.25), pen)
		}
	}

	// The MRZ, in OCR-B.
	doc := &Document{Image: img, Format: format, Lines: append([]string(nil), lines...), PxPerMM: ppm}
	doc.Pitch = mm(MRZPitchMM)
	doc.EmPx = doc.Pitch / ocrb.Advance()
	doc.MRZLeft = mm(lay.mrzLeft)
	// The middle of the caps and digits (0.74 em tall) sits on the centre line.
	top := H
	bottom := 0
	for _, c := range lay.mrzCentres {
		b := mm(c) + 0.37*doc.EmPx
		doc.Baselines = append(doc.Baselines, b)
		top = min(top, int(math.Floor(b-0.8*doc.EmPx)))
		bottom = max(bottom, int(math.Ceil(b+0.05*doc.EmPx)))
	}
	doc.MRZ = image.Rect(int(math.Floor(doc.MRZLeft)), top,
		int(math.Ceil(doc.MRZLeft+doc.Pitch*float64(format.Width()))), bottom).Intersect(img.Bounds())
	zone := doc.MRZ.Inset(-2).Intersect(img.Bounds())
	z := vector.NewRasterizer(zone.Dx(), zone.Dy())
	for i, l := range lines {
		oy := doc.Baselines[i] - float64(zone.Min.Y)
		for j, r := range l {
			ox := doc.MRZLeft + float64(j)*doc.Pitch - float64(zone.Min.X)
			ocrb.AddGlyph(z, r, func(x, y float64) (float64, float64) {
				return ox + x*doc.EmPx, oy + y*doc.EmPx
			})
		}
	}
	z.Draw(img, zone, image.NewUniform(color.RGBA{18, 18, 24, 255}), image.Point{})

	cutCorners(img, mm(lay.corner))
	return doc, nil
}

// startCard draws what every document shares: the tinted background, the
// title and issuing country along the top, and the portrait; it returns
// the image and the inks of values and labels.
func startCard(spec Spec, lay layout, ppm float64, rng *rand.Rand, title, state string) (img *image.RGBA, ink, labelInk color.RGBA) {
	W, H := int(math.Round(lay.w*ppm)), int(math.Round(lay.h*ppm))
	img = image.NewRGBA(image.Rect(0, 0, W, H))
	mm := func(v float64) float64 { return v * ppm }
	paintBackground(img, lay, ppm, rng)
	ink = color.RGBA{25, 25, 35, 255}
	labelInk = mix(ink, color.RGBA{90, 90, 110, 255}, 0.8)
	accent := hsl(rng.Float64()*360, 0.45, 0.35)
	drawText(img, textFace(true, mm(lay.value*1.25)), mm(lay.fx0), mm(lay.fy0-3.5), title, accent)
	drawText(img, textFace(true, mm(lay.value)), mm(lay.w*0.72), mm(lay.fy0-3.5), countryName(state), accent)
	photo := image.Rect(int(mm(lay.photo[0])), int(mm(lay.photo[1])), int(mm(lay.photo[2])), int(mm(lay.photo[3])))
	if spec.Face != nil {
		xdraw.ApproxBiLinear.Scale(img, photo, spec.Face, spec.Face.Bounds(), xdraw.Over, nil)
	} else {
		drawFace(img, photo, rng)
	}
	return img, ink, labelInk
}

// paintBackground fills img with a light tint, a faint guilloche and a
// gradient; the pattern is weaker in the MRZ zone (ICAO asks for a clear
// zone).
func paintBackground(img *image.RGBA, lay layout, ppm float64, rng *rand.Rand) {
	hue := rng.Float64() * 360
	base := hsl(hue, 0.25+0.3*rng.Float64(), 0.88+0.05*rng.Float64())
	line := hsl(hue+30*rng.NormFloat64(), 0.4, 0.62)
	end := hsl(hue+60, 0.3, 0.9)
	f1 := 2 * math.Pi / (3 + 3*rng.Float64())
	f2 := 2 * math.Pi / (12 + 10*rng.Float64())
	f3 := 2 * math.Pi / (4 + 3*rng.Float64())
	a1, a2 := 1+2*rng.Float64(), 1+2*rng.Float64()
	p1, p2 := rng.Float64()*6, rng.Float64()*6
	mrzTop := lay.mrzCentres[0] - 3
	b := img.Bounds()
	// Per-column and per-row terms, and a sine table for the rest.
	colS := make([]float64, b.Dx())
	colBase := make([]color.RGBA, b.Dx())
	for x := range colS {
		xmm := float64(x) / ppm
		colS[x] = a2 * math.Sin(f2*xmm+p2)
		colBase[x] = mix(base, end, xmm/lay.w*0.6)
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		ymm := float64(y) / ppm
		strength := 0.45
		if ymm > mrzTop {
			strength = 0.12
		}
		rowS := a1 * math.Sin(f2*ymm+p1)
		fy := f3 * ymm
		for x := b.Min.X; x < b.Max.X; x++ {
			xmm := float64(x) / ppm
			w1 := math.Abs(fastSin(f1*xmm + rowS))
			w2 := math.Abs(fastSin(fy + colS[x]))
			t := 0.0
			if w1 > 0.93 {
				t += smooth(0.93, 1, w1)
			}
			if w2 > 0.95 {
				t += smooth(0.95, 1, w2)
			}
			c := colBase[x]
			if t > 0 {
				c = mix(c, line, math.Min(t, 1)*strength)
			}
			i := img.PixOffset(x, y)
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, 255
		}
	}
}

// sinTable holds one period of sine for fastSin.
var sinTable = func() (t [4096]float64) {
	for i := range t {
		t[i] = math.Sin(2 * math.Pi * float64(i) / float64(len(t)))
	}
	return t
}()

// fastSin is a table sine, plenty accurate for drawing patterns.
func fastSin(x float64) float64 {
	i := int(x*(float64(len(sinTable))/(2*math.Pi))) & (len(sinTable) - 1)
	return sinTable[i]
}

func smooth(e0, e1, x float64) float64 {
	t := (x - e0) / (e1 - e0)
	if t <= 0 {
		return 0
	}
	if t >= 1 {
		return 1
	}
	return t * t * (3 - 2*t)
}

// cutCorners makes img transparent outside a rounded rectangle.
func cutCorners(img *image.RGBA, rad float64) {
	if rad <= 0 {
		return
	}
	b := img.Bounds()
	mask := image.NewAlpha(b)
	s := newShape(b)
	s.roundRect(0, 0, float64(b.Dx()), float64(b.Dy()), rad)
	s.fill(mask, color.Alpha{255})
	r := int(math.Ceil(rad)) + 1
	for y := b.Min.Y; y < b.Max.Y; y++ {
		if y >= b.Min.Y+r && y < b.Max.Y-r {
			continue
		}
		for x := b.Min.X; x < b.Max.X; x++ {
			a := uint32(mask.AlphaAt(x, y).A)
			if a == 255 {
				continue
			}
			i := img.PixOffset(x, y)
			for k := 0; k < 4; k++ {
				img.Pix[i+k] = uint8(uint32(img.Pix[i+k]) * a / 255)
			}
		}
	}
}

var months = [...]string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}

var frenchMonths = [...]string{"JANV", "FEVR", "MARS", "AVR", "MAI", "JUIN", "JUIL", "AOUT", "SEPT", "OCT", "NOV", "DEC"}

func showDate(d mrz.Date, raw string, style DateStyle) string {
	if !d.Valid() || d.Year <= 0 {
		return raw
	}
	switch style {
	case DateDotted:
		return fmt.Sprintf("%02d.%02d.%04d", d.Day, int(d.Month), d.Year)
	case DateSlashed:
		return fmt.Sprintf("%02d/%02d/%04d", d.Day, int(d.Month), d.Year)
	case DateBilingual:
		return fmt.Sprintf("%02d %s/%s %02d", d.Day, frenchMonths[d.Month-1], months[d.Month-1], d.Year%100)
	}
	return fmt.Sprintf("%02d %s %04d", d.Day, months[d.Month-1], d.Year)
}

// drawFields prints the visual inspection zone.
func drawFields(img *image.RGBA, lay layout, ppm float64, f mrz.Fields, lines []string, format mrz.Format,
	rng *rand.Rand, ink, labelInk color.RGBA, style DateStyle, L map[string]string) {
	if L == nil {
		L = labelSets[""]
	}
	mm := func(v float64) float64 { return v * ppm }
	lf, vf := textFace(false, mm(lay.label)), textFace(true, mm(lay.value))
	type cell struct{ label, value string }
	birth := showDate(f.BirthDate, f.RawBirthDate, style)
	expiry := showDate(f.ExpiryDate, f.RawExpiryDate, style)
	sex := f.Sex
	if sex == "" {
		sex = "X"
	}
	docNo := f.DocumentNumber
	if docNo == "" && format != mrz.TD1 && len(lines) > 1 {
		docNo = strings.TrimRight(lines[1][:9], "<")
	}
	issue := ""
	if f.ExpiryDate.Valid() {
		years := 10
		if f.BirthDate.Valid() && mrz.Age(f.BirthDate, f.ExpiryDate.Time()) < 23 {
			years = 5
		}
		issue = showDate(mrz.Date{Year: f.ExpiryDate.Year - years, Month: f.ExpiryDate.Month, Day: min(f.ExpiryDate.Day, 28)}, "", style)
	}
	rows := [][]cell{
		{{L["surname"], f.Surname}},
		{{L["given"], f.GivenNames}},
		{{L["nationality"], f.Nationality}, {L["birth"], birth}, {L["sex"], sex}},
		{{L["number"], docNo}, {L["expiry"], expiry}},
	}
	if format == mrz.TD3 || format == mrz.TD2 {
		noLabel := L["passport"]
		if format == mrz.TD2 {
			noLabel = L["number"]
			if v, ok := L["number2"]; ok {
				noLabel = v
			}
		}
		rows = append([][]cell{{{L["type"], f.DocumentCode}, {L["code"], f.IssuingState}, {noLabel, docNo}}}, rows...)
		rows[4] = []cell{{L["issue"], issue}, {L["expiry"], expiry}}
		rows = append(rows, []cell{{L["place"], cities[rng.IntN(len(cities))]}, {L["authority"], "MINISTRY OF INTERIOR"}})
	}
	rowH := lay.label + lay.value + 1.4
	y := lay.fy0
	for _, row := range rows {
		if y+rowH > lay.mrzCentres[0]-3 {
			break
		}
		colW := (lay.fx1 - lay.fx0) / float64(len(row))
		if len(row) == 3 {
			colW = (lay.fx1 - lay.fx0) / 3.2
		}
		for i, c := range row {
			x := lay.fx0 + float64(i)*colW
			drawText(img, lf, mm(x), mm(y+lay.label*0.8), c.label, labelInk)
			drawText(img, vf, mm(x), mm(y+lay.label+lay.value*0.85), c.value, ink)
		}
		y += rowH
	}
}

var cities = []string{"LISBON", "MILANO", "LYON", "GRAZ", "UTRECHT", "OSLO", "PORTO", "GDANSK", "SEVILLA", "CORK", "TURKU", "BRNO"}

func countryName(code string) string {
	names := map[string]string{
		"UTO": "UTOPIA", "D": "DEUTSCHLAND", "FRA": "FRANCE", "GBR": "UNITED KINGDOM", "NLD": "NEDERLAND",
		"ITA": "ITALIA", "ESP": "ESPAÑA", "PRT": "PORTUGAL", "BEL": "BELGIQUE", "AUT": "ÖSTERREICH",
		"SWE": "SVERIGE", "POL": "POLSKA", "IRL": "IRELAND", "FIN": "SUOMI", "CZE": "ČESKO", "NOR": "NORGE",
		"USA": "UNITED STATES", "CAN": "CANADA",
	}
	if n, ok := names[code]; ok {
		return n
	}
	return code
}
