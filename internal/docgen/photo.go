package docgen

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand/v2"

	xdraw "golang.org/x/image/draw"
)

// Degrade describes how Photograph distorts a document. Rotate,
// Perspective, Brightness, Contrast and Light are maxima (each photo draws
// its own value); Blur, Noise and JPEGQuality are applied as given.
type Degrade struct {
	// Width and Height of the photo; zero means 1600×1200.
	Width, Height int
	// MinScale and MaxScale bound the document's width as a fraction of
	// the photo's width; zero means 0.55 and 0.85.
	MinScale, MaxScale float64
	// Rotate is the largest rotation in degrees (either direction).
	Rotate float64
	// Perspective is the largest displacement of each document corner, as
	// a fraction of the document's width (keystone, tilt).
	Perspective float64
	// Tilt is the largest angle, in degrees, by which the document's
	// plane is turned out of the image plane about a random axis through
	// its centre (a card held at an angle to the camera), seen by a
	// pinhole camera with a phone's main-camera field of view (26 mm
	// equivalent focal length): the near side is larger than the far
	// side, the columns and lines converge, and the glyphs are
	// foreshortened across the axis. Unlike Perspective, which moves each
	// corner independently, this is the geometry of a real pose.
	Tilt float64
	// Blur is the standard deviation, in photo pixels, of a Gaussian blur.
	Blur float64
	// Noise is the standard deviation of Gaussian noise in 0–255 levels.
	Noise float64
	// Brightness is the largest offset in levels; Contrast the largest
	// relative change of contrast (0.2: ×0.8 to ×1.2); Light the largest
	// relative change of illumination across the photo (a gradient).
	Brightness, Contrast, Light float64
	// JPEGQuality, when positive, JPEG-compresses the photo at that quality.
	JPEGQuality int
	// Glare adds a bright elliptical reflection on the document.
	Glare bool
	// CutMRZ places the document partly outside the frame so that the
	// frame cuts through the MRZ (at its bottom or at one side).
	CutMRZ bool
	// CoverMRZ puts a finger over part of the MRZ.
	CoverMRZ bool
	// Centred places the document's centre at the photo's centre (before
	// Perspective and Tilt move its corners), as a person aiming at a
	// camera's frame guide does; otherwise it lies anywhere in the photo.
	Centred bool

	// The options below model photos as people take them with phones
	// (photo_effects.go). All are off when zero; maxima are drawn per
	// photo like Rotate.

	// Printer re-prints the MRZ with a random printer model (RandomPrinter,
	// Reprint) before the photo: another OCR-B cut, glyph width, height
	// and weight, ink spread, dot grid, jitter.
	Printer bool
	// Bend is the largest sag, in millimetres, of a cylindrical bend of
	// the page across its width (an open passport booklet): the rows of
	// the document bow by 0.4–1 × that much as seen by the camera.
	Bend float64
	// Barrel is the largest lens barrel distortion k (radius r, as a
	// fraction of the half-diagonal, is seen at r/(1 + k r²)).
	Barrel float64
	// MotionBlur is the largest length, in photo pixels, of a straight
	// motion blur in a random direction.
	MotionBlur float64
	// Shadow casts a soft shadow (a hand, the phone) across part of the
	// document, over the MRZ half of the time.
	Shadow bool
	// LowLight underexposes by 3–8× (light level 12–33 %), adds sensor
	// noise at that level (shot noise, read noise of Noise), then applies
	// a gain of 1–0.9/level as phones do, which amplifies the noise.
	LowLight bool
	// Denoise smears the image with an edge-preserving filter of strength
	// 0–1 (phone noise reduction); Sharpen adds an unsharp mask of that
	// amount (0.5–1.5 typical), which leaves halos along edges. Applied
	// after noise, before JPEG.
	Denoise, Sharpen float64
}

// Mild is a hand-held phone photo in good light: rotation up to 5°,
// perspective up to 3%, slight blur and noise, JPEG quality 70.
func Mild() Degrade {
	return Degrade{Rotate: 5, Perspective: 0.03, Blur: 0.7, Noise: 4, Brightness: 20, Contrast: 0.2, Light: 0.15, JPEGQuality: 70}
}

// Heavy is a poor photo: strong blur and noise, low JPEG quality.
func Heavy() Degrade {
	return Degrade{Rotate: 5, Perspective: 0.04, Blur: 2.5, Noise: 10, Brightness: 30, Contrast: 0.35, Light: 0.3, JPEGQuality: 40}
}

// Point is a position in photo pixels.
type Point struct{ X, Y float64 }

// Photo is the result of Photograph, with the ground truth of where the
// document and its MRZ ended up.
type Photo struct {
	// Image is the photo (an *image.YCbCr when JPEG-compressed).
	Image image.Image
	// JPEG holds the compressed bytes when Degrade.JPEGQuality > 0.
	JPEG []byte
	// Corners are the document's corners (top-left, top-right,
	// bottom-right, bottom-left) and MRZ the corners of Document.MRZ, in
	// photo pixels (they may lie outside the photo).
	Corners, MRZ [4]Point
	// Angle is the document's rotation in degrees (positive: clockwise on
	// screen, y pointing down).
	Angle float64
	// Scale is photo pixels per document pixel (at the document centre).
	Scale float64
	// Cut is whether part of the MRZ lies outside the frame; Covered
	// whether a finger lies over it.
	Cut, Covered bool
}

// Photograph places doc in a synthetic scene and degrades it as d says;
// seed makes the result reproducible.
func Photograph(doc *Document, d Degrade, seed uint64) (*Photo, error) {
	if doc == nil || doc.Image == nil {
		return nil, errors.New("docgen: no document")
	}
	rng := rand.New(rand.NewPCG(seed, 0xca3e7a))
	if d.Printer {
		var err error
		if doc, err = Reprint(doc, RandomPrinter(rng), rng.Uint64()); err != nil {
			return nil, err
		}
	}
	W, H := d.Width, d.Height
	if W <= 0 || H <= 0 {
		W, H = 1600, 1200
	}
	minS, maxS := d.MinScale, d.MaxScale
	if minS <= 0 {
		minS = 0.55
	}
	if maxS < minS {
		maxS = max(minS, 0.85)
	}
	dw, dh := float64(doc.Image.Bounds().Dx()), float64(doc.Image.Bounds().Dy())

	// Geometry: scale, rotate, place, then move each corner a little.
	var corners [4]Point
	var scale, angle float64
	for attempt := 0; ; attempt++ {
		scale = (minS + (maxS-minS)*rng.Float64()) * float64(W) / dw
		angle = (2*rng.Float64() - 1) * d.Rotate
		a := angle * math.Pi / 180
		cos, sin := math.Cos(a), math.Sin(a)
		bw := scale * (dw*math.Abs(cos) + dh*math.Abs(sin))
		bh := scale * (dw*math.Abs(sin) + dh*math.Abs(cos))
		if (bw > float64(W)*0.98 || bh > float64(H)*0.98) && attempt < 20 {
			maxS = minS + (maxS-minS)*0.8
			continue
		}
		cx := bw/2 + (float64(W)-bw)*rng.Float64()
		cy := bh/2 + (float64(H)-bh)*rng.Float64()
		if bw > float64(W) || d.Centred {
			cx = float64(W) / 2
		}
		if bh > float64(H) || d.Centred {
			cy = float64(H) / 2
		}
		jit := d.Perspective * dw * scale
		for i, c := range [4][2]float64{{0, 0}, {dw, 0}, {dw, dh}, {0, dh}} {
			x, y := (c[0]-dw/2)*scale, (c[1]-dh/2)*scale
			corners[i] = Point{cx + x*cos - y*sin + jit*(2*rng.Float64()-1), cy + x*sin + y*cos + jit*(2*rng.Float64()-1)}
		}
		if d.Tilt > 0 {
			corners = tiltCorners(corners, Point{cx, cy}, d.Tilt*rng.Float64(), 2*math.Pi*rng.Float64(), W, H)
			inside := true
			for _, p := range corners {
				inside = inside && p.X >= 0 && p.Y >= 0 && p.X <= float64(W) && p.Y <= float64(H)
			}
			if !inside && !d.CutMRZ && attempt < 20 {
				maxS = minS + (maxS-minS)*0.8
				continue
			}
		}
		break
	}
	src := [4]Point{{0, 0}, {dw, 0}, {dw, dh}, {0, dh}}
	fwd := homography(src, corners)
	mrzRect := doc.MRZ
	mrzQuad := func() [4]Point {
		var q [4]Point
		for i, p := range [4]Point{{float64(mrzRect.Min.X), float64(mrzRect.Min.Y)}, {float64(mrzRect.Max.X), float64(mrzRect.Min.Y)},
			{float64(mrzRect.Max.X), float64(mrzRect.Max.Y)}, {float64(mrzRect.Min.X), float64(mrzRect.Max.Y)}} {
			q[i] = fwd.apply(p)
		}
		return q
	}
	ph := &Photo{Angle: angle, Scale: scale}
	if d.CutMRZ {
		q := mrzQuad()
		var dx, dy float64
		switch rng.IntN(3) {
		case 0: // bottom edge through the zone
			top := math.Min(q[0].Y, q[1].Y)
			bot := math.Max(q[2].Y, q[3].Y)
			dy = float64(H) - (top + (0.3+0.5*rng.Float64())*(bot-top))
		case 1: // right edge: 10–40 % of the zone outside
			left := math.Min(q[0].X, q[3].X)
			right := math.Max(q[1].X, q[2].X)
			dx = float64(W) - (left + (0.6+0.3*rng.Float64())*(right-left))
		default: // left edge
			left := math.Min(q[0].X, q[3].X)
			right := math.Max(q[1].X, q[2].X)
			dx = -(left + (0.1+0.3*rng.Float64())*(right-left))
		}
		for i := range corners {
			corners[i].X += dx
			corners[i].Y += dy
		}
		fwd = homography(src, corners)
	}
	inv := homography(corners, src)
	ph.Corners = corners
	ph.MRZ = mrzQuad()
	for _, p := range ph.MRZ {
		if p.X < 0 || p.Y < 0 || p.X > float64(W) || p.Y > float64(H) {
			ph.Cut = true
		}
	}

	img := image.NewRGBA(image.Rect(0, 0, W, H))
	paintScene(img, rng)
	// Shrink the document first (with a proper low-pass filter) so that the
	// warp needs one bilinear sample per pixel.
	src2, scale2 := doc.Image, scale
	if scale < 0.95 {
		f := scale * 1.05
		r := image.Rect(0, 0, int(math.Ceil(dw*f)), int(math.Ceil(dh*f)))
		small := image.NewRGBA(r)
		xdraw.BiLinear.Scale(small, r, doc.Image, doc.Image.Bounds(), xdraw.Src, nil)
		sw, sh := float64(r.Dx()), float64(r.Dy())
		inv = homography(corners, [4]Point{{0, 0}, {sw, 0}, {sw, sh}, {0, sh}})
		src2, scale2 = small, scale*dw/sw
	}
	var bend func(u float64) float64
	if d.Bend > 0 {
		bend = bendFunc(d.Bend*doc.PxPerMM*float64(src2.Bounds().Dx())/dw, float64(src2.Bounds().Dx()), rng)
	}
	drawDocument(img, src2, corners, inv, scale2, bend)
	if d.Shadow {
		addShadow(img, corners, ph.MRZ, rng)
	}
	if d.Glare {
		addGlare(img, corners, ph.MRZ, rng)
	}
	if d.CoverMRZ {
		addFinger(img, corners, ph.MRZ, rng)
		ph.Covered = true
	}
	adjust(img, d, rng)
	if d.Barrel > 0 {
		k := d.Barrel * rng.Float64()
		img = barrel(img, k)
		for i := range ph.Corners {
			ph.Corners[i] = barrelPoint(ph.Corners[i], k, W, H)
			ph.MRZ[i] = barrelPoint(ph.MRZ[i], k, W, H)
		}
	}
	if d.Blur > 0 {
		gaussianBlur(img, d.Blur)
	}
	if d.MotionBlur > 0 {
		motionBlur(img, d.MotionBlur*(0.3+0.7*rng.Float64()), rng.Float64()*math.Pi)
	}
	if d.LowLight {
		lowLight(img, d.Noise, rng)
	} else if d.Noise > 0 {
		addNoise(img, d.Noise, rng)
	}
	if d.Denoise > 0 {
		denoise(img, d.Denoise)
	}
	if d.Sharpen > 0 {
		unsharp(img, d.Sharpen, 1+rng.Float64())
	}
	ph.Image = img
	if d.JPEGQuality > 0 {
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: min(d.JPEGQuality, 100)}); err != nil {
			return nil, err
		}
		ph.JPEG = buf.Bytes()
		dec, err := jpeg.Decode(bytes.NewReader(ph.JPEG))
		if err != nil {
			return nil, err
		}
		ph.Image = dec
	}
	return ph, nil
}

// hom is a 3×3 projective transform with h[8] = 1.
type hom [9]float64

func (h hom) apply(p Point) Point {
	w := h[6]*p.X + h[7]*p.Y + h[8]
	return Point{(h[0]*p.X + h[1]*p.Y + h[2]) / w, (h[3]*p.X + h[4]*p.Y + h[5]) / w}
}

// Homography returns the homography (row-major 3×3, last entry 1) that
// maps the four points from onto the four points to (no three
// collinear), solving the 8×8 linear system by Gauss–Jordan elimination
// with partial pivoting. The generators of test data share it.
func Homography(from, to [4]Point) [9]float64 { return homography(from, to) }

// homography maps the four points from onto the four points to.
func homography(from, to [4]Point) hom {
	var a [8][9]float64
	for i := 0; i < 4; i++ {
		x, y, X, Y := from[i].X, from[i].Y, to[i].X, to[i].Y
		a[2*i] = [9]float64{x, y, 1, 0, 0, 0, -X * x, -X * y, X}
		a[2*i+1] = [9]float64{0, 0, 0, x, y, 1, -Y * x, -Y * y, Y}
	}
	for c := 0; c < 8; c++ {
		p := c
		for r := c + 1; r < 8; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		a[c], a[p] = a[p], a[c]
		for r := 0; r < 8; r++ {
			if r == c || a[c][c] == 0 {
				continue
			}
			f := a[r][c] / a[c][c]
			for k := c; k < 9; k++ {
				a[r][k] -= f * a[c][k]
			}
		}
	}
	var h hom
	for i := 0; i < 8; i++ {
		h[i] = a[i][8] / a[i][i]
	}
	h[8] = 1
	return h
}

// paintScene fills img with a table-like background: a tinted gradient,
// wood-like grain and a few objects.
func paintScene(img *image.RGBA, rng *rand.Rand) {
	b := img.Bounds()
	c0 := hsl(rng.Float64()*360, 0.1+0.3*rng.Float64(), 0.15+0.5*rng.Float64())
	c1 := hsl(rng.Float64()*360, 0.1+0.3*rng.Float64(), 0.15+0.5*rng.Float64())
	gx, gy := rng.NormFloat64(), rng.NormFloat64()
	n := math.Hypot(gx, gy) + 1e-9
	gx, gy = gx/n, gy/n
	fg := 2 * math.Pi / (20 + 60*rng.Float64())
	amp := 0.06 * rng.Float64()
	W, H := float64(b.Dx()), float64(b.Dy())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		fy := fg * float64(y)
		ty := (float64(y)/H - 0.5) * gy
		for x := b.Min.X; x < b.Max.X; x++ {
			t := 0.5 + 0.5*((float64(x)/W-0.5)*gx+ty)
			c := mix(c0, c1, t)
			g := 1 + amp*fastSin(fy+3*fastSin(float64(x)*0.004+t*4))
			i := img.PixOffset(x, y)
			img.Pix[i] = clamp8(float64(c.R) * g)
			img.Pix[i+1] = clamp8(float64(c.G) * g)
			img.Pix[i+2] = clamp8(float64(c.B) * g)
			img.Pix[i+3] = 255
		}
	}
	for k := rng.IntN(4); k > 0; k-- {
		x0, y0 := rng.Float64()*W, rng.Float64()*H
		fillRect(img, x0, y0, x0+W*(0.05+0.3*rng.Float64()), y0+H*(0.05+0.3*rng.Float64()),
			hsl(rng.Float64()*360, 0.5*rng.Float64(), 0.1+0.8*rng.Float64()))
	}
}

// drawDocument composites doc onto img through the inverse homography inv
// (photo → document), supersampling when the document is shrunk.
//
// bend, if not nil, bows the document: the content at document x is seen
// bend(x) pixels lower.
func drawDocument(img, doc *image.RGBA, corners [4]Point, inv hom, scale float64, bend func(float64) float64) {
	minX, minY, maxX, maxY := corners[0].X, corners[0].Y, corners[0].X, corners[0].Y
	for _, c := range corners {
		minX, maxX = math.Min(minX, c.X), math.Max(maxX, c.X)
		minY, maxY = math.Min(minY, c.Y), math.Max(maxY, c.Y)
	}
	pad := 1
	if bend != nil {
		pad += int(math.Ceil(math.Abs(bend(float64(doc.Bounds().Dx())/2)) * scale))
	}
	r := image.Rect(int(minX)-pad, int(minY)-pad, int(maxX)+pad+1, int(maxY)+pad+1).Intersect(img.Bounds())
	ss := 1
	if scale < 0.9 {
		ss = min(int(math.Ceil(1/scale)), 3)
	}
	dw, dh := doc.Bounds().Dx(), doc.Bounds().Dy()
	n := float64(ss * ss)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			var acc [4]float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					p := inv.apply(Point{float64(x) + (float64(sx)+0.5)/float64(ss), float64(y) + (float64(sy)+0.5)/float64(ss)})
					if bend != nil {
						p.Y -= bend(p.X)
					}
					u, v := p.X-0.5, p.Y-0.5
					if u < -1 || v < -1 || u > float64(dw) || v > float64(dh) {
						continue
					}
					bilinearRGBA(doc, u, v, &acc)
				}
			}
			a := acc[3] / n
			if a <= 0 {
				continue
			}
			i := img.PixOffset(x, y)
			for k := 0; k < 3; k++ {
				img.Pix[i+k] = clamp8(acc[k]/n + float64(img.Pix[i+k])*(1-a/255))
			}
		}
	}
}

// bilinearRGBA adds the bilinear interpolation of m at (u, v) to acc
// (pixels outside m count as transparent).
func bilinearRGBA(m *image.RGBA, u, v float64, acc *[4]float64) {
	x0, y0 := int(math.Floor(u)), int(math.Floor(v))
	fx, fy := u-float64(x0), v-float64(y0)
	w, h := m.Rect.Dx(), m.Rect.Dy()
	if x0 >= 0 && y0 >= 0 && x0+1 < w && y0+1 < h {
		i := y0*m.Stride + x0*4
		p := m.Pix[i : i+8 : i+8]
		q := m.Pix[i+m.Stride : i+m.Stride+8 : i+m.Stride+8]
		w00, w10, w01, w11 := (1-fx)*(1-fy), fx*(1-fy), (1-fx)*fy, fx*fy
		for k := 0; k < 4; k++ {
			acc[k] += w00*float64(p[k]) + w10*float64(p[4+k]) + w01*float64(q[k]) + w11*float64(q[4+k])
		}
		return
	}
	for dy := 0; dy < 2; dy++ {
		for dx := 0; dx < 2; dx++ {
			x, y := x0+dx, y0+dy
			if x < 0 || y < 0 || x >= w || y >= h {
				continue
			}
			wt := (1 - math.Abs(float64(dx)-fx)) * (1 - math.Abs(float64(dy)-fy))
			i := y*m.Stride + x*4
			for k := 0; k < 4; k++ {
				acc[k] += wt * float64(m.Pix[i+k])
			}
		}
	}
}

// addGlare brightens an ellipse on the document (half the time over the
// MRZ).
func addGlare(img *image.RGBA, corners, mrzQ [4]Point, rng *rand.Rand) {
	var cx, cy float64
	if rng.IntN(2) == 0 {
		t := rng.Float64()
		cx = mrzQ[0].X + (mrzQ[1].X-mrzQ[0].X)*t
		cy = mrzQ[0].Y + (mrzQ[3].Y-mrzQ[0].Y)*rng.Float64()
	} else {
		u, v := rng.Float64(), rng.Float64()
		cx = corners[0].X*(1-u)*(1-v) + corners[1].X*u*(1-v) + corners[2].X*u*v + corners[3].X*(1-u)*v
		cy = corners[0].Y*(1-u)*(1-v) + corners[1].Y*u*(1-v) + corners[2].Y*u*v + corners[3].Y*(1-u)*v
	}
	docW := math.Hypot(corners[1].X-corners[0].X, corners[1].Y-corners[0].Y)
	rx := docW * (0.08 + 0.15*rng.Float64())
	ry := rx * (0.3 + 0.5*rng.Float64())
	th := rng.Float64() * math.Pi
	cos, sin := math.Cos(th), math.Sin(th)
	strength := 0.5 + 0.45*rng.Float64()
	b := img.Bounds()
	R := int(rx * 2)
	r := image.Rect(int(cx)-R, int(cy)-R, int(cx)+R, int(cy)+R).Intersect(b)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			dx, dy := float64(x)-cx, float64(y)-cy
			u := (dx*cos + dy*sin) / rx
			v := (-dx*sin + dy*cos) / ry
			q := u*u + v*v
			if q > 4 {
				continue
			}
			g := strength * math.Exp(-q*q)
			i := img.PixOffset(x, y)
			for k := 0; k < 3; k++ {
				img.Pix[i+k] = clamp8(float64(img.Pix[i+k]) + (255-float64(img.Pix[i+k]))*g)
			}
		}
	}
}

// addFinger draws a finger entering from below the document and covering
// part of the MRZ.
func addFinger(img *image.RGBA, corners, mrzQ [4]Point, rng *rand.Rand) {
	t := 0.15 + 0.7*rng.Float64()
	lerp := func(a, b Point, t float64) Point { return Point{a.X + (b.X-a.X)*t, a.Y + (b.Y-a.Y)*t} }
	topP := lerp(mrzQ[0], mrzQ[1], t)
	botP := lerp(mrzQ[3], mrzQ[2], t)
	zoneH := math.Hypot(botP.X-topP.X, botP.Y-topP.Y)
	docW := math.Hypot(corners[1].X-corners[0].X, corners[1].Y-corners[0].Y)
	radius := docW * (0.055 + 0.03*rng.Float64()) // a finger is ~15 mm wide
	// Up the document, tilted up to ±25°.
	ux, uy := (topP.X-botP.X)/zoneH, (topP.Y-botP.Y)/zoneH
	tilt := (2*rng.Float64() - 1) * 25 * math.Pi / 180
	ux, uy = ux*math.Cos(tilt)-uy*math.Sin(tilt), ux*math.Sin(tilt)+uy*math.Cos(tilt)
	reach := 0.6 + 0.6*rng.Float64() // tip from the middle of the zone to above it
	tip := Point{botP.X + ux*zoneH*reach, botP.Y + uy*zoneH*reach}
	base := Point{tip.X - ux*docW*1.5, tip.Y - uy*docW*1.5}
	skins := []color.RGBA{{232, 190, 160, 255}, {210, 160, 125, 255}, {170, 120, 90, 255}, {120, 85, 60, 255}}
	skin := skins[rng.IntN(len(skins))]
	nail := mix(skin, color.RGBA{250, 225, 220, 255}, 0.5)
	sx, sy := tip.X-base.X, tip.Y-base.Y
	l2 := sx*sx + sy*sy
	b := image.Rect(int(math.Min(base.X, tip.X)-radius)-1, int(math.Min(base.Y, tip.Y)-radius)-1,
		int(math.Max(base.X, tip.X)+radius)+2, int(math.Max(base.Y, tip.Y)+radius)+2).Intersect(img.Bounds())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			px, py := float64(x)+0.5-base.X, float64(y)+0.5-base.Y
			s := math.Max(0, math.Min(1, (px*sx+py*sy)/l2))
			dx, dy := px-s*sx, py-s*sy
			dist := math.Hypot(dx, dy)
			a := radius - dist + 0.5
			if a <= 0 {
				continue
			}
			a = math.Min(a, 1)
			shade := 1 - 0.35*(dist/radius)*(dist/radius)
			c := skin
			// The nail: an ellipse just behind the tip.
			fromTip := (1 - s) * math.Sqrt(l2)
			if q := math.Pow((fromTip-radius*0.45)/(radius*0.5), 2) + math.Pow(dist/(radius*0.6), 2); q < 1 && s < 1 {
				c = nail
			}
			i := img.PixOffset(x, y)
			for k, v := range [3]uint8{c.R, c.G, c.B} {
				img.Pix[i+k] = clamp8(float64(img.Pix[i+k])*(1-a) + float64(v)*shade*a)
			}
		}
	}
}

// adjust applies brightness, contrast and an illumination gradient.
func adjust(img *image.RGBA, d Degrade, rng *rand.Rand) {
	br := (2*rng.Float64() - 1) * d.Brightness
	ct := 1 + (2*rng.Float64()-1)*d.Contrast
	lx, ly := (2*rng.Float64()-1)*d.Light, (2*rng.Float64()-1)*d.Light
	if br == 0 && ct == 1 && lx == 0 && ly == 0 {
		return
	}
	b := img.Bounds()
	W, H := float64(b.Dx()), float64(b.Dy())
	var lut [256]float64
	for v := range lut {
		lut[v] = (float64(v)-128)*ct + 128 + br
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			g := 1 + lx*(float64(x)/W-0.5) + ly*(float64(y)/H-0.5)
			i := img.PixOffset(x, y)
			for k := 0; k < 3; k++ {
				img.Pix[i+k] = clamp8(lut[img.Pix[i+k]] * g)
			}
		}
	}
}

// gaussianBlur blurs the colour channels of img in place (separable).
func gaussianBlur(img *image.RGBA, sigma float64) {
	rad := int(math.Ceil(3 * sigma))
	k := make([]float32, 2*rad+1)
	sum := float32(0)
	for i := range k {
		x := float64(i - rad)
		k[i] = float32(math.Exp(-x * x / (2 * sigma * sigma)))
		sum += k[i]
	}
	for i := range k {
		k[i] /= sum
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	// Channel planes padded by rad on each side (edge pixels repeated).
	row := make([]float32, w+2*rad)
	tmp := make([]float32, w*h)
	for c := 0; c < 3; c++ {
		for y := 0; y < h; y++ {
			pix := img.Pix[y*img.Stride:]
			for x := range row {
				xx := min(max(x-rad, 0), w-1)
				row[x] = float32(pix[xx*4+c])
			}
			out := tmp[y*w : (y+1)*w]
			for x := range out {
				var acc float32
				win := row[x : x+len(k)]
				for j, kv := range k {
					acc += kv * win[j]
				}
				out[x] = acc
			}
		}
		acc := make([]float32, w)
		for y := 0; y < h; y++ {
			clear(acc)
			for j, kv := range k {
				yy := min(max(y+j-rad, 0), h-1)
				src := tmp[yy*w : (yy+1)*w]
				for x, v := range src {
					acc[x] += kv * v
				}
			}
			pix := img.Pix[y*img.Stride:]
			for x, v := range acc {
				pix[x*4+c] = clamp8(float64(v))
			}
		}
	}
}

// addNoise adds Gaussian noise: mostly shared by the channels (luminance),
// partly per channel (chroma), as camera noise is. Normal deviates come
// from a table indexed at random, which is fast and random enough here.
func addNoise(img *image.RGBA, std float64, rng *rand.Rand) {
	var table [1 << 12]float32
	for i := range table {
		table[i] = float32(rng.NormFloat64())
	}
	const mask = len(table) - 1
	lum, chroma := float32(std*0.85), float32(std*0.5)
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r := rng.Uint64()
			i := img.PixOffset(x, y)
			l := table[int(r)&mask] * lum
			for k := 0; k < 3; k++ {
				v := float32(img.Pix[i+k]) + l + table[int(r>>(12*(k+1)))&mask]*chroma
				img.Pix[i+k] = clamp8(float64(v))
			}
		}
	}
}

// tiltCorners turns the document whose corners are cs (centre c, in the
// image plane) by theta degrees out of that plane about the axis through
// c at angle phi (radians) in it, and projects it with a pinhole camera
// of a phone's field of view (focal length 0.6 × the photo's diagonal,
// 26 mm in 35 mm terms) whose principal point is the photo's centre and
// which sees the untilted document at its present size.
func tiltCorners(cs [4]Point, c Point, theta, phi float64, w, h int) [4]Point {
	f := 0.6 * math.Hypot(float64(w), float64(h))
	t := theta * math.Pi / 180
	ux, uy := math.Cos(phi), math.Sin(phi)
	ct, st := math.Cos(t), math.Sin(t)
	var out [4]Point
	for i, p := range cs {
		x, y := p.X-c.X, p.Y-c.Y
		// Rodrigues' rotation of (x, y, 0) about the unit axis (ux, uy, 0).
		d := ux*x + uy*y
		rx := x*ct + ux*d*(1-ct)
		ry := y*ct + uy*d*(1-ct)
		rz := (ux*y - uy*x) * st
		X := c.X - float64(w)/2 + rx
		Y := c.Y - float64(h)/2 + ry
		Z := f + rz
		out[i] = Point{float64(w)/2 + f*X/Z, float64(h)/2 + f*Y/Z}
	}
	return out
}
