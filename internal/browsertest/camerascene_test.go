package browsertest

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/mrz"
)

// Camera scenes for the capture measurement (TestCaptureFirstAttempt): a
// document rendered by internal/docgen, photographed by docgen.Photograph
// as a still of a table with the document centred on it, and then filmed:
// every video frame is a view of that still through a hand-held camera
// that aims at the page's frame guide with a small error, shakes a little
// (a random walk of position, zoom and roll), and smears what moves during
// the exposure. Nothing here knows how the page's guidance decides: where
// the document lies is chosen as a person fills the guide, in document
// widths of the guide's, not in the detector's search bands.

// The camera: 1280×720 at 10 frames a second. Chromium's fake camera plays
// the file in a loop from its first frame each time the page opens it.
const (
	camW, camH = 1280, 720
	camFPS     = 10
	// stillMargin is how much larger than the frame the still is on each
	// side, as a fraction of the frame, so the camera's aim error, shake
	// and zoom never look past its edge.
	stillMargin = 0.1
	// guideWidth is the page's document guide's width as a fraction of the
	// frame's (hosted.css: 6 % from each side).
	guideWidth = 0.88
)

// Motion is how the document moves in a scene's video.
type motion int

const (
	// steady: held in front of the camera with hand shake only.
	steady motion = iota
	// moveIn: the document starts half outside the frame (to the right)
	// for 1.2 s, is moved in over 0.8 s, then held.
	moveIn
	// movingGlare: a reflection lies on the document and slides off it
	// over 2 s (the person tilts it), then it is held.
	movingGlare
	// dark: a dim room the phone's exposure cannot make up for (the frame
	// at a fifth of the still's brightness, with sensor noise), all along.
	dark
)

// cameraScene is one scene of the measurement: a document, how it is
// photographed, and how it moves.
type cameraScene struct {
	name, condition string
	docType         verifyd.DocumentType
	// country is the page's choice (SPEC's alpha-3, lower case); state the
	// MRZ's issuing state and nationality; labels docgen's field labels.
	country, state, labels string
	degrade                docgen.Degrade
	// fill is the document's width as a fraction of the guide's width.
	fill   float64
	motion motion
	seed   uint64
}

// The documents the scenes take turns with: ID cards (TD1) and passport
// data pages (TD3) of several countries, in their labels' language.
var sceneDocs = []struct {
	docType        verifyd.DocumentType
	country, state string
	labels         string
}{
	{verifyd.DocIDCard, "deu", "D", "de"},
	{verifyd.DocPassport, "fra", "FRA", "fr"},
	{verifyd.DocIDCard, "ita", "ITA", "it"},
	{verifyd.DocPassport, "esp", "ESP", "es"},
	{verifyd.DocIDCard, "nld", "NLD", ""},
	{verifyd.DocPassport, "aut", "AUT", "de"},
	{verifyd.DocIDCard, "bel", "BEL", "fr"},
	{verifyd.DocPassport, "pol", "POL", ""},
}

// sceneConditions are the photo conditions, each with a docgen degradation
// (drawn per scene: maxima, like docgen's own cases) and a motion.
var sceneConditions = []struct {
	name    string
	motion  motion
	degrade func() docgen.Degrade
}{
	{"good light", steady, docgen.Mild},
	{"tilted (up to 8° turned, 25° out of plane)", steady, func() docgen.Degrade { d := docgen.Mild(); d.Rotate, d.Tilt = 8, 25; return d }},
	{"perspective", steady, func() docgen.Degrade { d := docgen.Mild(); d.Perspective = 0.06; return d }},
	{"low light + noise", steady, func() docgen.Degrade { d := docgen.Mild(); d.LowLight, d.Noise = true, 6; return d }},
	{"soft focus", steady, func() docgen.Degrade { d := docgen.Mild(); d.Blur = 1.6; return d }},
	{"glare", steady, func() docgen.Degrade { d := docgen.Mild(); d.Glare = true; return d }},
	{"shadow", steady, func() docgen.Degrade { d := docgen.Mild(); d.Shadow = true; return d }},
	{"phone processing", steady, func() docgen.Degrade {
		d := docgen.Mild()
		d.Denoise, d.Sharpen, d.Printer = 0.6, 1.2, true
		return d
	}},
	{"hard: moved in from outside", moveIn, docgen.Mild},
	{"hard: glare that moves away", movingGlare, docgen.Mild},
	{"hard: too dark all along", dark, func() docgen.Degrade { d := docgen.Mild(); d.LowLight = true; return d }},
}

// cameraScenes returns perScene scenes of every condition, documents taking
// turns, reproducibly from seed.
func cameraScenes(seed uint64, perCondition int) []cameraScene {
	rng := rand.New(rand.NewPCG(seed, 13))
	var out []cameraScene
	k := 0
	for _, c := range sceneConditions {
		for range perCondition {
			d := sceneDocs[k%len(sceneDocs)]
			k++
			// A person fills most of the guide; a passport's data page is
			// taller than an ID-1 card, so it fills less of its width.
			fill := 0.68 + 0.22*rng.Float64()
			if d.docType == verifyd.DocPassport {
				fill = 0.62 + 0.18*rng.Float64()
			}
			out = append(out, cameraScene{
				name:      fmt.Sprintf("%02d %s %s", len(out)+1, d.country, c.name),
				condition: c.name, docType: d.docType, country: d.country, state: d.state, labels: d.labels,
				degrade: c.degrade(), fill: fill, motion: c.motion, seed: rng.Uint64(),
			})
		}
	}
	return out
}

// render draws the scene's document, with portrait as the holder's photo
// (nil: docgen's synthetic face), and photographs it twice, as the front
// and the back (docgen draws one side: both carry the photo and the MRZ).
func (s cameraScene) render(t *testing.T, portrait image.Image, now time.Time) (front, back *docgen.Photo) {
	t.Helper()
	g := docgen.NewGenerator(s.seed, now)
	g.MinorRate, g.ExpiredRate = 0, 0
	f := mrz.TD1
	if s.docType == verifyd.DocPassport {
		f = mrz.TD3
	}
	spec := g.Spec(f)
	spec.Fields.IssuingState, spec.Fields.Nationality = s.state, s.state
	if f == mrz.TD1 {
		spec.Fields.DocumentCode = "ID"
	}
	spec.Labels, spec.Face = s.labels, portrait
	doc, err := docgen.Render(spec)
	if errors.Is(err, docgen.ErrNoFont) {
		testdb.Skip(t, err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	shots := make([]*docgen.Photo, 2)
	for n := range shots {
		d := s.degrade
		mx, my := s.margins()
		d.Width, d.Height = camW+2*mx, camH+2*my
		d.MinScale = s.fill * guideWidth * camW / float64(d.Width)
		d.MaxScale = d.MinScale
		d.Centred = true
		// The camera sees the scene uncompressed; the page encodes the JPEG.
		d.JPEGQuality = 0
		if shots[n], err = docgen.Photograph(doc, d, s.seed+uint64(n)); err != nil {
			t.Fatal(err)
		}
	}
	return shots[0], shots[1]
}

// margins is how much larger than the frame the still is on each side:
// stillMargin, and for moveIn what the camera sees before the document is
// brought in.
func (s cameraScene) margins() (mx, my int) {
	mx, my = int(stillMargin*camW), int(stillMargin*camH)
	if s.motion == moveIn {
		mx += int(moveInX * camW)
		my += int(moveInY * camH)
	}
	return mx, my
}

// moveIn's start: the document's centre this far from the aim, as a
// fraction of the frame's width and height.
const moveInX, moveInY = 0.5, 0.1

// video writes the Y4M file Chromium's fake camera plays for one side:
// seconds long, filming the still as s.motion says; side varies the
// shake between the front and the back.
func (s cameraScene) video(t *testing.T, still *docgen.Photo, path string, side uint64) {
	t.Helper()
	src, ok := still.Image.(*image.RGBA)
	if !ok {
		src = image.NewRGBA(still.Image.Bounds())
		draw.Draw(src, src.Bounds(), still.Image, image.Point{}, draw.Src)
	}
	rng := rand.New(rand.NewPCG(s.seed, 100+side))
	const seconds = 4.0
	n := int(seconds * camFPS)
	cams := s.cameraPath(rng, n)
	docW := math.Hypot(still.Corners[1].X-still.Corners[0].X, still.Corners[1].Y-still.Corners[0].Y)

	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, "YUV4MPEG2 W%d H%d F%d:1 Ip A1:1 C420jpeg\n", camW, camH, camFPS)
	rgb := make([]float32, camW*camH*3)
	y := make([]byte, camW*camH)
	cb := make([]byte, camW*camH/4)
	cr := make([]byte, camW*camH/4)
	for i := range n {
		at := float64(i) / camFPS
		filmFrame(src, rgb, cams, i)
		switch s.motion {
		case movingGlare:
			// The reflection starts on the document's middle and slides
			// to its upper right corner and off within 2 s, fading out.
			p := min(1, at/2)
			a := 1.0
			if at > 1.6 {
				a = max(0, 1-(at-1.6)/0.6)
			}
			c := cams[i]
			addMovingGlare(rgb, c.docX+0.6*docW*p, c.docY-0.35*docW*p, 0.18*docW, 0.11*docW, a)
		case dark:
			for k := range rgb {
				rgb[k] *= 0.2
			}
		}
		toYCbCr(rgb, y, cb, cr, rng)
		w.WriteString("FRAME\n")
		w.Write(y)
		w.Write(cb)
		w.Write(cr)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// camPose is where the camera points in one frame: the still's point at
// the frame's centre is the still's centre minus (offX, offY) pixels (the
// document's centre is seen at docX, docY), zoom and roll; blur is the
// motion during the exposure. The still's pixels are the frame's at zoom 1.
type camPose struct {
	offX, offY, zoom, roll float64
	docX, docY             float64
	blurX, blurY           float64
}

// cameraPath draws the camera's poses: an aim error of up to 4 % of the
// frame, a random walk of the hand (about 1.5 px and 0.1 % zoom a frame,
// pulled back to the aim), and for moveIn the document first half out of
// the frame and then brought in.
func (s cameraScene) cameraPath(rng *rand.Rand, n int) []camPose {
	aimX := (2*rng.Float64() - 1) * 0.04 * camW
	aimY := (2*rng.Float64() - 1) * 0.04 * camH
	var jx, jy, jz, jr float64
	poses := make([]camPose, n)
	for i := range poses {
		at := float64(i) / camFPS
		jx = 0.8*jx + rng.NormFloat64()*1.5
		jy = 0.8*jy + rng.NormFloat64()*1.5
		jz = 0.8*jz + rng.NormFloat64()*0.001
		jr = 0.8*jr + rng.NormFloat64()*0.0015
		x, y := aimX+jx, aimY+jy
		if s.motion == moveIn {
			// Eased from half a frame to the right to the aim.
			p := math.Min(1, math.Max(0, (at-1.2)/0.8))
			p = p * p * (3 - 2*p)
			x += (1 - p) * moveInX * camW
			y += (1 - p) * moveInY * camH
		}
		poses[i] = camPose{offX: x, offY: y, zoom: 1 + jz, roll: jr, docX: camW/2 + x, docY: camH/2 + y}
	}
	// The exposure (1/30 s, a third of the frame interval) smears the
	// motion from the previous frame to this one.
	for i := 1; i < n; i++ {
		poses[i].blurX = (poses[i].offX - poses[i-1].offX) / 3
		poses[i].blurY = (poses[i].offY - poses[i-1].offY) / 3
	}
	return poses
}

// filmFrame samples frame i of the camera's path from the still (bilinear),
// averaging samples along the motion of the exposure when it moves more
// than half a pixel.
func filmFrame(src *image.RGBA, rgb []float32, cams []camPose, i int) {
	c := cams[i]
	sw, sh := float64(src.Bounds().Dx()), float64(src.Bounds().Dy())
	steps := int(math.Ceil(math.Hypot(c.blurX, c.blurY)))
	steps = max(1, min(steps, 12))
	cos, sin := math.Cos(c.roll), math.Sin(c.roll)
	k := 1 / c.zoom
	for k2 := range rgb {
		rgb[k2] = 0
	}
	for st := range steps {
		f := 0.0
		if steps > 1 {
			f = float64(st)/float64(steps-1) - 1 // from a blur length back to now
		}
		ox, oy := c.offX+f*c.blurX, c.offY+f*c.blurY
		for y := range camH {
			v := float64(y) - camH/2 - oy
			for x := range camW {
				u := float64(x) - camW/2 - ox
				sx := sw/2 + k*(u*cos+v*sin)
				sy := sh/2 + k*(-u*sin+v*cos)
				r, g, b := bilinear(src, sx, sy)
				o := (y*camW + x) * 3
				rgb[o] += r
				rgb[o+1] += g
				rgb[o+2] += b
			}
		}
	}
	if steps > 1 {
		inv := 1 / float32(steps)
		for k2 := range rgb {
			rgb[k2] *= inv
		}
	}
}

// bilinear samples src at (x, y), clamping to its edge.
func bilinear(src *image.RGBA, x, y float64) (r, g, b float32) {
	w, h := src.Bounds().Dx(), src.Bounds().Dy()
	x = math.Max(0, math.Min(float64(w)-1.001, x))
	y = math.Max(0, math.Min(float64(h)-1.001, y))
	x0, y0 := int(x), int(y)
	fx, fy := float32(x-float64(x0)), float32(y-float64(y0))
	i := y0*src.Stride + x0*4
	j := i + src.Stride
	p := src.Pix
	mix := func(c int) float32 {
		top := float32(p[i+c])*(1-fx) + float32(p[i+4+c])*fx
		bot := float32(p[j+c])*(1-fx) + float32(p[j+4+c])*fx
		return top*(1-fy) + bot*fy
	}
	return mix(0), mix(1), mix(2)
}

// addMovingGlare brightens an ellipse (radii rx, ry) centred at (cx, cy)
// toward white with strength a, as docgen's glare does.
func addMovingGlare(rgb []float32, cx, cy, rx, ry, a float64) {
	if a <= 0 {
		return
	}
	x0, x1 := max(0, int(cx-2*rx)), min(camW, int(cx+2*rx))
	y0, y1 := max(0, int(cy-2*ry)), min(camH, int(cy+2*ry))
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			u, v := (float64(x)-cx)/rx, (float64(y)-cy)/ry
			q := u*u + v*v
			g := float32(a * math.Exp(-q*q))
			o := (y*camW + x) * 3
			for c := range 3 {
				rgb[o+c] += (255 - rgb[o+c]) * g
			}
		}
	}
}

// toYCbCr converts the frame to the Y4M's planes (JPEG's full-range
// YCbCr, chroma averaged over 2×2 pixels) with sensor noise on the
// luminance (σ 1.5 levels), so no two frames are the same.
func toYCbCr(rgb []float32, y, cb, cr []byte, rng *rand.Rand) {
	for j := 0; j < camH; j += 2 {
		for i := 0; i < camW; i += 2 {
			var sb, sr int
			for _, d := range [4][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
				o := ((j+d[1])*camW + i + d[0]) * 3
				yy, b, r := color.RGBToYCbCr(clamp8(float64(rgb[o])), clamp8(float64(rgb[o+1])), clamp8(float64(rgb[o+2])))
				y[(j+d[1])*camW+i+d[0]] = clamp8(float64(yy) + rng.NormFloat64()*1.5)
				sb += int(b)
				sr += int(r)
			}
			cb[(j/2)*(camW/2)+i/2] = byte(sb / 4)
			cr[(j/2)*(camW/2)+i/2] = byte(sr / 4)
		}
	}
}

// sceneVideoPath is where a scene's videos are written (one file, replaced
// between the front and the back: the fake camera opens it anew each time
// the page starts the camera).
func sceneVideoPath(t *testing.T) string { return filepath.Join(t.TempDir(), "scene.y4m") }
