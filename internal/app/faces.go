package app

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"runtime"
	"slices"
	"sync"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/math/f64"

	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/tfjs"
	"github.com/verifyd/verifyd/tfjs/faceapi"
	"github.com/verifyd/verifyd/tfjs/human"
)

// faceMaxSide is the long side, within shrinkSlack, of a photo the face
// models look at. A 12 MP phone photo would make a 140 MB float tensor; at
// 1600 px a selfie's face is still several hundred pixels, and a
// document's portrait (about a fifth of an ID card's width, a third of the
// photo) over 100.
const faceMaxSide = 1600

// faceInputSizes are the tiny detector's input sides, tried in order
// until a face scores at least 0.5. The detector sees faces best at about
// 2–5 of its 32-pixel cells (its anchors span 1.6 to 10 cells): at 800 it
// finds a document's portrait (a face of ~120 px in a 1600 px photo;
// measured on composed documents, 608 and 416 often score it below 0.5),
// but a close-up selfie's face (half the width) is beyond its largest
// anchor there and is found at one of the smaller sizes.
//
// face-api's SSD MobileNet v1 (faceapi.Analyzer.DetectSSD) was evaluated
// in place of this loop (2026-11-21, TestFaceAccuracy -faces.all,
// docs/accuracy.md): it finds more faces (1 photo without a face instead
// of 10) but fails a genuine same-photo pair, first or as a fallback
// after this loop, and turns heavily degraded document photos into
// photo_mismatch; the engine keeps the tiny detector.
var faceInputSizes = []int{800, 608, 416, 320}

// A close-up (a selfie: the face a quarter of the photo's side or more)
// is beyond the largest anchor at 800 and often at 608, so the loop above
// ran the detector three times on it, 800 alone costing as much as 416
// and 608 together. Faces therefore looks at probeInputSize first and
// keeps what it finds there when a face scores at least 0.5 and spans at
// least probeCells of its 32-pixel cells: a face the detector sees in the
// middle of its anchors' range, which the larger sizes would not find
// better. A document's portrait (a fifth of the photo at most) spans one
// or two cells at 416 and takes the loop as before, the probe's
// detections reused when it reaches 416.
const (
	probeInputSize = 416
	probeCells     = 3
)

// FaceModels runs the face networks for the engine's face checks. Loading
// takes a few hundred milliseconds and about 25 MB; the networks are
// shared by all verifications.
type FaceModels struct {
	analyzer *faceapi.Analyzer
	crop     DescriptorCrop
	// slots bounds concurrent inferences: each uses all cores already
	// (tfjs splits its matrix products), so running more at once only
	// multiplies memory.
	slots chan struct{}
	// liveness is nil when the liveness models are absent or altered, and
	// livenessErr says which.
	liveness    func(img image.Image, face image.Rectangle) (engine.Liveness, error)
	livenessErr error

	// FaceRes (human's descriptor), loaded by the first FaceResDescriptor
	// call; nothing in the engine uses it yet.
	dir        string
	faceResMu  sync.Mutex
	faceRes    *human.FaceRes
	faceResErr error
}

// ErrNoFaceModels is wrapped by LoadFaceModels' error when the face model
// files are absent or altered: the face checks then go to review.
var ErrNoFaceModels = errors.New("face models unavailable")

// DescriptorCrop is what the recognition network is given to compute a
// face's descriptor.
type DescriptorCrop int

const (
	// ChipMirrored, the default: the mean of the descriptors of the face
	// chip (see ChipOnly) and of its mirror image. Mirroring is the usual
	// test-time augmentation of face verification: it evens out light
	// from one side and a face turned slightly to one side, at the price
	// of a second pass of the network.
	ChipMirrored DescriptorCrop = iota
	// ChipOnly: the descriptor of dlib's 150×150 face chip, the face
	// rotated upright and scaled by its landmarks as dlib's model (which
	// face-api's recognition network is a port of) was trained on; see
	// facechip.go.
	ChipOnly
	// FaceAPICrop: face-api's own crop (faceapi.Analyzer.Faces), an
	// unrotated square around the eyes and mouth, one pass. The engine
	// used it until 2026-11-24; kept to compare against
	// (docs/accuracy.md "Faces").
	FaceAPICrop
)

// LoadFaceModels loads the face networks from a models directory written
// by `verifyd models fetch`; it fails (ErrNoFaceModels) when they are
// absent or altered. The liveness models are optional: LivenessErr says
// why they were not loaded. Descriptors are computed with ChipMirrored.
func LoadFaceModels(dir string) (*FaceModels, error) {
	return LoadFaceModelsCrop(dir, ChipMirrored)
}

// LoadFaceModelsCrop is LoadFaceModels computing descriptors from crop;
// the engine's thresholds (engine.DefaultFaceThresholds) are calibrated
// for ChipMirrored only.
func LoadFaceModelsCrop(dir string, crop DescriptorCrop) (*FaceModels, error) {
	if err := faceapi.Check(dir); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoFaceModels, err)
	}
	a, err := faceapi.LoadAnalyzer(dir)
	if err != nil {
		return nil, fmt.Errorf("face models: %w", err)
	}
	m := &FaceModels{analyzer: a, crop: crop, slots: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2)), dir: dir}
	// The liveness models are a separate package; without them face
	// matching still runs and liveness goes to review.
	if m.livenessErr = human.Check(dir); m.livenessErr == nil {
		l, err := human.LoadLiveness(dir)
		if err != nil {
			return nil, fmt.Errorf("liveness models: %w", err)
		}
		m.liveness = func(img image.Image, face image.Rectangle) (engine.Liveness, error) {
			small, scale := shrink(img, faceMaxSide)
			b := img.Bounds()
			box := image.Rect(int(float64(face.Min.X-b.Min.X)/scale), int(float64(face.Min.Y-b.Min.Y)/scale),
				int(float64(face.Max.X-b.Min.X)/scale), int(float64(face.Max.Y-b.Min.Y)/scale))
			s, err := l.Score(faceapi.ImageTensor(small), human.EnlargeBox(box, human.DefaultBoxScale))
			return engine.Liveness{Real: s.Real, Live: s.Live}, err
		}
	}
	return m, nil
}

// HasLiveness reports whether the liveness models were loaded.
func (m *FaceModels) HasLiveness() bool { return m.liveness != nil }

// LivenessErr is why the liveness models were not loaded (nil when they were).
func (m *FaceModels) LivenessErr() error { return m.livenessErr }

// Faces implements engine.FaceAnalyzer: the tiny detector at the sizes
// of faceInputSizes, face-api's landmarks (engine.Face.Landmarks), and
// the descriptor of the crop m was loaded with (ChipMirrored unless
// LoadFaceModelsCrop said otherwise).
func (m *FaceModels) Faces(ctx context.Context, img image.Image) ([]engine.Face, error) {
	return m.faces(ctx, img, faceInputSizes, probeInputSize, true)
}

// frameInputSizes are the detector's input sides for the frames of a
// liveness capture: frames are at most 640 px (liveness.MaxFrameSide) with
// the face filling much of them, which the detector sees at its smaller
// sizes; 800 would only upscale the frame.
var frameInputSizes = []int{416, 608, 320}

// Landmarks implements engine.LandmarkFinder: Faces without descriptors,
// for the many frames of a liveness capture (the recognition network is
// most of a face's cost).
func (m *FaceModels) Landmarks(ctx context.Context, img image.Image) ([]engine.Face, error) {
	return m.faces(ctx, img, frameInputSizes, 0, false)
}

// faces finds the faces of img (detectSizes), their landmarks and, if
// describe, their descriptors.
func (m *FaceModels) faces(ctx context.Context, img image.Image, sizes []int, probe int, describe bool) ([]engine.Face, error) {
	select {
	case m.slots <- struct{}{}:
		defer func() { <-m.slots }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	small, scale := shrink(img, faceMaxSide)
	t := faceapi.ImageTensor(small)
	sb := small.Bounds()
	dets, err := detectSizes(func(size int) ([]faceapi.Detection, error) {
		return m.analyzer.Detect(t, faceapi.TinyDetectorOptions{InputSize: size, ScoreThreshold: 0.3})
	}, sizes, probe, max(sb.Dx(), sb.Dy()))
	if err != nil {
		return nil, err
	}
	// onSmall maps a point of t to small's coordinates: the identity
	// unless the faces were found on small turned (rollAngles).
	onSmall := func(p faceapi.Point) faceapi.Point { return p }
	if !slices.ContainsFunc(dets, sure) {
		// Every angle of a look (lastLooks) is looked at, and the one
		// with the largest sure face kept: a turn the wrong way can still
		// find a smaller face at the photo's edge (a bystander in a group photo, turned out
		// of the way of the tilted head the other turn finds), and the
		// person verifying is the one nearest the camera.
		//
		// The detector sees the turned photo at its own small sizes: it
		// is searched halved to under 1,664 px (turning a 2,000 px photo
		// cost ~0.2 s of one core, the search a fifth of it), and turned
		// at full size only when a face is found there, for the
		// landmarks and the descriptor.
		look := small
		for max(look.Bounds().Dx(), look.Bounds().Dy()) >= 4*rollInputSizes[0] {
			look = halve(look)
		}
		f := float64(sb.Dx()) / float64(look.Bounds().Dx())
		largest, at := 0.0, 0.0
		for _, l := range lastLooks {
			for _, deg := range l.angles {
				turned := t
				if look != small {
					turned = faceapi.ImageTensor(look)
				}
				if deg != 0 {
					turned = whole(look, deg).tensor(look)
				}
				td, err := detectSizes(func(size int) ([]faceapi.Detection, error) {
					return m.analyzer.Detect(turned, faceapi.TinyDetectorOptions{InputSize: size, ScoreThreshold: 0.3})
				}, l.sizes, 0, 0)
				if err != nil {
					return nil, err
				}
				for _, d := range td {
					if sure(d) && d.Box.Width > largest {
						largest, at, dets = d.Box.Width, deg, td
					}
				}
			}
			if largest > 0 {
				break
			}
		}
		if largest > 0 {
			for i := range dets {
				b := &dets[i].Box
				b.X, b.Y, b.Width, b.Height = b.X*f, b.Y*f, b.Width*f, b.Height*f
			}
			if at != 0 {
				tr := whole(small, at)
				t, onSmall = tr.tensor(small), tr.from
			}
		}
	}
	found := m.analyzer.Locate(t, dets)
	b := img.Bounds()
	// onImg maps a point of small to img's coordinates.
	onImg := func(p faceapi.Point) engine.Point {
		return engine.Point{X: float64(b.Min.X) + p.X*scale, Y: float64(b.Min.Y) + p.Y*scale}
	}
	out := make([]engine.Face, len(found))
	for i, f := range found {
		d := f.Detection.Box
		lm := make([]engine.Point, len(f.Landmarks))
		ps := make([]faceapi.Point, len(f.Landmarks)) // on small
		for j, p := range f.Landmarks {
			ps[j] = onSmall(p)
			lm[j] = onImg(ps[j])
		}
		// A box found on the turned photo is moved, not turned, back: its
		// centre goes where the face is and its size stays the face's,
		// which the liveness crop and the size rule (MinFacePixels) need,
		// not the larger box that would hold the turned square.
		c := onSmall(faceapi.Point{X: d.X + d.Width/2, Y: d.Y + d.Height/2})
		out[i] = engine.Face{
			Landmarks: lm,
			Box: image.Rect(b.Min.X+int(math.Round((c.X-d.Width/2)*scale)), b.Min.Y+int(math.Round((c.Y-d.Height/2)*scale)),
				b.Min.X+int(math.Round((c.X+d.Width/2)*scale)), b.Min.Y+int(math.Round((c.Y+d.Height/2)*scale))).Intersect(b),
			Score: f.Detection.Score,
		}
		ft := t
		if roll, ok := eyeRoll(ps, d.Width); ok && sure(f.Detection) && math.Abs(roll) > levelAngle {
			// The landmark network places the points of a tilted head
			// poorly (a face-api sample person turned 30°: 0.64 eye
			// distances off, the descriptor then 0.69 from the same
			// selfie upright), and the descriptor's chip is cut by
			// them. They are placed again on the face turned level by
			// them, where the network sees it nearly as it was trained
			// to: a square of three times the face's size about its
			// centre, all the landmarks and the chip need. Once: a
			// second turn by the tilt measured on the levelled face
			// made the points worse, not better.
			z := min(1, levelFacePixels/max(d.Width, d.Height))
			fw, fh := z*d.Width, z*d.Height
			side := int(math.Ceil(3 * max(fw, fh)))
			tr := turning{c: c, w: side, h: side, deg: -roll, zoom: z}
			lt := tr.tensor(small)
			again := m.analyzer.Locate(lt, []faceapi.Detection{{
				Box:   faceapi.Box{X: float64(side)/2 - fw/2, Y: float64(side)/2 - fh/2, Width: fw, Height: fh},
				Score: f.Detection.Score,
			}})
			// Kept only if the points placed again agree that the face is
			// now level: points the network could not place (an upside-down
			// selfie, its EXIF orientation lost) show a tilt as often as
			// not, and levelled by it such a face went from a borderline
			// 0.706 to a mismatch of 0.844 with its own photo.
			if len(again) == 1 && level(again[0].Landmarks, fw) {
				for j, p := range again[0].Landmarks {
					lm[j] = onImg(tr.from(p))
				}
				ft, f = lt, again[0]
			}
		}
		if describe {
			out[i].Descriptor = m.descriptor(ft, f)
		}
	}
	return out, nil
}

// levelFacePixels is the largest side, in pixels, of a face placed again
// turned level: a larger face is turned onto a canvas that shrinks it to
// this, which costs (side/300)² less than turning it whole and loses
// nothing the networks see: the landmark network looks at 112 × 112
// pixels, the descriptor's chip is 150 × 150 (a larger face is halved
// before it is sampled, faceChip).
const levelFacePixels = 300.0

// levelAngle is the tilt of a face's eyes, in degrees, beyond which its
// landmarks are located again on the photo turned level: the landmark
// network places the points of a head tilted by up to about 20° as well
// as upright (TestTiltedSelfie).
const levelAngle = 15

// eyeRoll returns the angle, in degrees, of the line from the centre of
// the eye on the photo's left (landmarks 36–41) to that of the other
// (42–47), clockwise from the horizontal as the photo is seen, on a face
// whose detected box is width wide. It is not ok when the points cannot
// be a head tilted as a selfie's is: tilted by more than 45° (the turned
// second look finds a face tilted by up to about 40°), or the eyes'
// centres closer than a fifth of the box's width (a third on a face seen
// from the front). The landmark network puts its points somewhere even
// on a face it cannot place: a webcam screenshot's cell in face-api's
// calibration data had them at 58°, 0.16 of its box apart; levelled by
// them, the face's descriptor moved 0.12 further from the same person's
// other photos, past the mismatch distance.
func eyeRoll(lm []faceapi.Point, width float64) (float64, bool) {
	if len(lm) != 68 {
		return 0, false
	}
	var l, r faceapi.Point
	for i := range 6 {
		l.X, l.Y = l.X+lm[36+i].X/6, l.Y+lm[36+i].Y/6
		r.X, r.Y = r.X+lm[42+i].X/6, r.Y+lm[42+i].Y/6
	}
	roll := math.Atan2(r.Y-l.Y, r.X-l.X) * 180 / math.Pi
	return roll, math.Abs(roll) <= 45 && math.Hypot(r.X-l.X, r.Y-l.Y) >= width/5
}

// level reports landmarks whose eyes are tilted by at most levelAngle.
func level(lm []faceapi.Point, width float64) bool {
	roll, ok := eyeRoll(lm, width)
	return ok && math.Abs(roll) <= levelAngle
}

// sure reports whether a detection is confident enough to settle the
// search (the engine counts faces from 0.5, MinFaceScore).
func sure(d faceapi.Detection) bool { return d.Score >= 0.5 }

// rollAngles are the turns, in degrees, of a photo faces looks at again
// when the detector found no sure face on it upright. The tiny detector
// tolerates a head tilted by about 20° (of face-api's sample faces it
// misses one in nine at 30° and three in ten at 35°, TestTiltedSelfie
// -faces.tilts, docs/accuracy.md "A tilted head"); a selfie taken with the phone or the
// head tilted goes beyond that, and was sent to review as faceless.
// Turning the photo by 20° either way brings a face tilted by up to
// about 40° back within the detector's reach; the turn the wrong way
// makes the tilt worse and finds nothing.
var rollAngles = []float64{20, -20}

// rollInputSizes are the detector's sizes for a turned photo: a face
// that was missed for its tilt is a close-up (a selfie, a liveness
// frame, a document's portrait looked at closer), which 416 and 320 see;
// the larger sizes, which only a small face needs, would double the cost
// of every photo without a face.
var rollInputSizes = []int{416, 320}

// lastLooks are the looks taken, in turn, at a photo on which no face
// scores 0.5 at faceInputSizes, until one finds a sure face: turned by
// rollAngles at rollInputSizes, then upright at 224, face-api's size for
// large faces. A face filling half of a dark close-up scored 0.11–0.41 at
// every larger size, upright and turned, and 0.57 upright at 224 (an
// independent generator's selfie, seed 71); TestDarkCloseUp finds 24 of
// 36 dark close-ups with it, 19 without. 224 comes last and upright only:
// tried before the turned look it found heads tilted by 20°–40° that the
// turned look finds, with landmarks up to 0.66 eye distances off instead
// of within 0.1 (TestTiltedSelfie); turned too, it found the whole card
// on one of 132 photos of documents' backs as a face (0.76), where
// upright it finds none. It costs a third of 416.
var lastLooks = []struct {
	angles []float64
	sizes  []int
}{
	{rollAngles, rollInputSizes},
	{[]float64{0}, []int{224}},
}

// turning is a photo turned by deg degrees clockwise about c (a point
// of its pixels, its bounds' Min at 0) onto a canvas of w × h whose
// centre c goes to.
type turning struct {
	c    faceapi.Point
	w, h int
	deg  float64
	// zoom is the canvas's pixels per pixel of the photo, in (0, 1]; 0
	// means 1.
	zoom float64
}

// whole is img turned about its centre onto a canvas of its own size.
func whole(img image.Image, deg float64) turning {
	b := img.Bounds()
	return turning{c: faceapi.Point{X: float64(b.Dx()) / 2, Y: float64(b.Dy()) / 2}, w: b.Dx(), h: b.Dy(), deg: deg}
}

// rot returns the sine and cosine of the turn, each times the zoom.
func (t turning) rot() (s, c, z float64) {
	z = t.zoom
	if z == 0 {
		z = 1
	}
	s, c = math.Sincos(t.deg * math.Pi / 180)
	return s * z, c * z, z
}

// from maps a point of the canvas back to the photo.
func (t turning) from(q faceapi.Point) faceapi.Point {
	s, c, z := t.rot()
	x, y := q.X-float64(t.w)/2, q.Y-float64(t.h)/2
	return faceapi.Point{X: t.c.X + (c*x+s*y)/(z*z), Y: t.c.Y + (-s*x+c*y)/(z*z)}
}

// tensor is the canvas with img turned onto it (draw), as the networks'
// input.
func (t turning) tensor(img image.Image) *tfjs.Tensor { return faceapi.ImageTensor(t.draw(img)) }

// draw returns the canvas with img turned onto it, sampled bilinearly,
// grey where img does not reach.
func (t turning) draw(img image.Image) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, t.w, t.h))
	draw.Draw(dst, dst.Rect, image.NewUniform(color.RGBA{128, 128, 128, 255}), image.Point{}, draw.Src)
	// Source to destination: the inverse of from, with img's own Min
	// moved to 0.
	s, c, _ := t.rot()
	b := img.Bounds()
	ox, oy := float64(b.Min.X)+t.c.X, float64(b.Min.Y)+t.c.Y
	m := f64.Aff3{c, -s, float64(t.w)/2 - c*ox + s*oy, s, c, float64(t.h)/2 - s*ox - c*oy}
	xdraw.BiLinear.Transform(dst, m, img, b, xdraw.Over, nil)
	return dst
}

// detectSizes runs detect, the detector at an input size, on a photo
// whose long side is long pixels: first at probe (unless 0), whose
// detections are kept when exactly one of them scores at least 0.5 and
// it is a large face (probeCells);
// otherwise at sizes in turn until a face scores at least 0.5, or the
// last size's detections. A size is run at most once.
func detectSizes(detect func(size int) ([]faceapi.Detection, error), sizes []int, probe, long int) ([]faceapi.Detection, error) {
	done := map[int][]faceapi.Detection{}
	at := func(size int) ([]faceapi.Detection, error) {
		if d, ok := done[size]; ok {
			return d, nil
		}
		d, err := detect(size)
		done[size] = d
		return d, err
	}
	if probe > 0 {
		dets, err := at(probe)
		if err != nil {
			return nil, err
		}
		// Only a lone sure face settles it: 416 can see a second sure
		// face beside a close-up that 800 does not (a hair line or a
		// shoulder), and two faces send the selfie to review, so a photo
		// with more than one takes the loop, as it did before the probe.
		var confident []faceapi.Detection
		for _, d := range dets {
			if sure(d) {
				confident = append(confident, d)
			}
		}
		if len(confident) == 1 && confident[0].Box.Width*float64(probe) >= probeCells*32*float64(long) {
			return dets, nil
		}
	}
	var dets []faceapi.Detection
	for _, size := range sizes {
		var err error
		if dets, err = at(size); err != nil {
			return nil, err
		}
		if slices.ContainsFunc(dets, sure) {
			break
		}
	}
	return dets, nil
}

// descriptor computes the descriptor of face f of t as m.crop says.
func (m *FaceModels) descriptor(t *tfjs.Tensor, f faceapi.Face) []float32 {
	if m.crop == FaceAPICrop {
		a := f.Aligned
		return m.analyzer.Descriptor(faceapi.Crop(t, image.Rect(int(a.X), int(a.Y), int(a.X+a.Width), int(a.Y+a.Height))))
	}
	chip := FaceChip(t, f.Landmarks, chipSize, chipPadding)
	d := m.analyzer.Descriptor(chip)
	if m.crop == ChipOnly {
		return d
	}
	for i, v := range m.analyzer.Descriptor(mirror(chip)) {
		d[i] = (d[i] + v) / 2
	}
	return d
}

// shrink scales img so its long side is at most maxSide, or a little
// more, returning the factor from the result's coordinates back to img's.
//
// A photo twice maxSide or more is halved by 2×2 means (anti-aliased and
// cheap) until it is not; a result within shrinkSlack of maxSide is kept
// as it is. Catmull-Rom from 2000 to 1600 px cost ~0.23 s of one core
// per 12 MP photo (its kernel's float64 buffer alone is 77 MB), two
// fifths of a face check, for nothing the detector needs: it sees the
// photo at its own input sizes (faceInputSizes), the same at either
// scale, and the descriptor's chip is anti-aliased from whatever it is
// cut from (faceChip).
func shrink(img image.Image, maxSide int) (image.Image, float64) {
	b := img.Bounds()
	long := max(b.Dx(), b.Dy())
	if float64(long) <= shrinkSlack*float64(maxSide) {
		return img, 1
	}
	src := img
	for max(src.Bounds().Dx(), src.Bounds().Dy()) >= 2*maxSide {
		src = halve(src)
	}
	sb := src.Bounds()
	if float64(max(sb.Dx(), sb.Dy())) <= shrinkSlack*float64(maxSide) {
		return src, float64(b.Dx()) / float64(sb.Dx())
	}
	s := float64(maxSide) / float64(long)
	w, h := max(1, int(math.Round(float64(b.Dx())*s))), max(1, int(math.Round(float64(b.Dy())*s)))
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), src, sb, xdraw.Src, nil)
	return dst, float64(b.Dx()) / float64(w)
}

// shrinkSlack is how far past maxSide (as a factor) a photo, halved or
// not, is kept as it is: 12 MP phone photos (4000–4032 px) halve to
// 2000–2016 px, a 16:9 one (4624 px) to 2312, and a photo of up to 2,400
// px is not resampled at all. Until 2026-12-01 the slack was 1.3, and
// photos of 2,080–2,400 px (the 16:9 one halved among them) were still
// resampled by Catmull-Rom. Halving every photo over the slack (no
// Catmull-Rom at all) saved a third of the face search's time on seed
// 59's documents, but printed the poster in faceeval's calibration at
// 1209 px instead of 1600 and moved its farthest genuine pair from 0.742
// to 0.761, within the mismatch rule's margin of 0.78: not done without
// recalibrating (docs/performance.md, twenty-seventh pass).
const shrinkSlack = 1.5

// halve returns img at half its size, each pixel the mean of a 2×2 block.
func halve(img image.Image) *image.RGBA {
	if y, ok := img.(*image.YCbCr); ok {
		return halveYCbCr(y)
	}
	b := img.Bounds()
	full := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(full, full.Rect, img, b.Min, draw.Src) // fast paths for YCbCr and RGBA
	w, h := b.Dx()/2, b.Dy()/2
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		r0 := full.Pix[(2*y)*full.Stride:]
		r1 := full.Pix[(2*y+1)*full.Stride:]
		o := out.Pix[y*out.Stride:]
		for x := 0; x < w; x++ {
			i := 8 * x
			for c := 0; c < 4; c++ {
				o[4*x+c] = uint8((uint16(r0[i+c]) + uint16(r0[i+4+c]) + uint16(r1[i+c]) + uint16(r1[i+4+c]) + 2) / 4)
			}
		}
	}
	return out
}

// halveYCbCr is halve for a decoded JPEG: the 2×2 means are taken of the
// luma and chroma samples and converted once, instead of converting the
// whole photo to RGBA first (a 48 MB copy of a 12 MP photo). The colour
// conversion is affine, so the result differs from halve's by rounding
// (and clamping where a pixel leaves the RGB cube).
func halveYCbCr(img *image.YCbCr) *image.RGBA {
	b := img.Bounds()
	w, h := b.Dx()/2, b.Dy()/2
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		y0, y1 := b.Min.Y+2*y, b.Min.Y+2*y+1
		r0, r1 := img.YOffset(b.Min.X, y0), img.YOffset(b.Min.X, y1)
		c0 := -1
		if img.SubsampleRatio == image.YCbCrSubsampleRatio420 && b.Min.X%2 == 0 && b.Min.Y%2 == 0 {
			c0 = img.COffset(b.Min.X, y0)
		}
		o := out.Pix[y*out.Stride:]
		for x := 0; x < w; x++ {
			x0, x1 := b.Min.X+2*x, b.Min.X+2*x+1
			lum := (int(img.Y[r0+2*x]) + int(img.Y[r0+2*x+1]) + int(img.Y[r1+2*x]) + int(img.Y[r1+2*x+1]) + 2) / 4
			var cb, cr uint8
			if c0 >= 0 {
				// 4:2:0 from an even corner: one chroma sample per block.
				cb, cr = img.Cb[c0+x], img.Cr[c0+x]
			} else {
				var sb, sr int
				for _, c := range [4]int{img.COffset(x0, y0), img.COffset(x1, y0), img.COffset(x0, y1), img.COffset(x1, y1)} {
					sb += int(img.Cb[c])
					sr += int(img.Cr[c])
				}
				cb, cr = uint8((sb+2)/4), uint8((sr+2)/4)
			}
			rr, gg, bb := color.YCbCrToRGB(uint8(lum), cb, cr)
			o[4*x], o[4*x+1], o[4*x+2], o[4*x+3] = rr, gg, bb, 255
		}
	}
	return out
}

// Liveness implements engine.LivenessScorer.
func (m *FaceModels) Liveness(ctx context.Context, img image.Image, face image.Rectangle) (engine.Liveness, error) {
	if m.liveness == nil {
		return engine.Liveness{}, fmt.Errorf("liveness models: %w", engine.ErrUnavailable)
	}
	select {
	case m.slots <- struct{}{}:
		defer func() { <-m.slots }()
	case <-ctx.Done():
		return engine.Liveness{}, ctx.Err()
	}
	return m.liveness(img, face)
}

// FaceResDescriptor returns the 1024-value FaceRes descriptor
// (@vladmandic/human's faceres.json, human.FaceRes) of the face in box
// on img, box as a Faces result gives it (engine.Face.Box, img's
// coordinates). The crop is human's: the box enlarged ×1.4 about its
// centre and made square (human.EnlargeBox), cut out and resized to
// 192×192, then to the model's 224×224. Compare two descriptors with
// human.FaceResDistance (Euclidean) or human.Similarity.
//
// The model is loaded from the models directory by the first call (about
// 14 MB as float32); its files must pass human.CheckFaceRes, otherwise
// every call returns that error wrapping engine.ErrUnavailable. The
// engine does not call this: FaceRes is being evaluated
// (docs/faces.md "FaceRes").
func (m *FaceModels) FaceResDescriptor(ctx context.Context, img image.Image, box image.Rectangle) ([]float32, error) {
	fr, err := m.loadFaceRes()
	if err != nil {
		return nil, err
	}
	select {
	case m.slots <- struct{}{}:
		defer func() { <-m.slots }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	small, scale := shrink(img, faceMaxSide)
	b := img.Bounds()
	r := image.Rect(int(float64(box.Min.X-b.Min.X)/scale), int(float64(box.Min.Y-b.Min.Y)/scale),
		int(float64(box.Max.X-b.Min.X)/scale), int(float64(box.Max.Y-b.Min.Y)/scale))
	return fr.Describe(faceapi.ImageTensor(small), human.EnlargeBox(r, human.DefaultBoxScale))
}

// FaceResDir is the models directory FaceResDescriptor loads FaceRes from.
func (m *FaceModels) FaceResDir() string { return m.dir }

func (m *FaceModels) loadFaceRes() (*human.FaceRes, error) {
	m.faceResMu.Lock()
	defer m.faceResMu.Unlock()
	if m.faceRes == nil && m.faceResErr == nil {
		if err := human.CheckFaceRes(m.dir); err != nil {
			m.faceResErr = fmt.Errorf("FaceRes model: %w: %w", engine.ErrUnavailable, err)
		} else if m.faceRes, err = human.LoadFaceRes(m.dir); err != nil {
			m.faceResErr = fmt.Errorf("FaceRes model: %w", err)
		}
	}
	return m.faceRes, m.faceResErr
}
