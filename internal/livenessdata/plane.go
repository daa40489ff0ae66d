package livenessdata

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"math/rand/v2"

	"github.com/verifyd/verifyd/internal/docgen"
)

// This file moves a flat picture (a print, a phone, an ID card) in front
// of a camera: the picture is a rectangle in 3D, rotated and moved as a
// hand would, projected by a pinhole camera. Every point of the picture
// therefore moves by one homography per frame, which is exactly what an
// attacker holding a flat medium can do and no more.

// mat3 is a 3×3 matrix, row-major.
type mat3 [9]float64

// apply maps (x, y) through the homography h.
func (h mat3) apply(x, y float64) (float64, float64) {
	w := h[6]*x + h[7]*y + h[8]
	return (h[0]*x + h[1]*y + h[2]) / w, (h[3]*x + h[4]*y + h[5]) / w
}

// inverse returns h⁻¹ (the adjugate; a homography's scale is free).
func (h mat3) inverse() mat3 {
	a, b, c, d, e, f, g, k, l := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8]
	return mat3{
		e*l - f*k, c*k - b*l, b*f - c*e,
		f*g - d*l, a*l - c*g, c*d - a*f,
		d*k - e*g, b*g - a*k, a*e - b*d,
	}
}

// homography returns the homography taking src[i] to dst[i] (four
// points, no three collinear): docgen's solver.
func homography(src, dst [4][2]float64) mat3 {
	var from, to [4]docgen.Point
	for i := range 4 {
		from[i] = docgen.Point{X: src[i][0], Y: src[i][1]}
		to[i] = docgen.Point{X: dst[i][0], Y: dst[i][1]}
	}
	return mat3(docgen.Homography(from, to))
}

// pose is where the hand holds the flat medium. Angles are in radians:
// yaw about the vertical axis (positive brings the medium's right edge
// towards the camera), pitch about the horizontal axis (positive brings
// its bottom edge towards the camera), roll in the image plane. dist is
// the distance relative to the starting one (0.7 is 30 % closer); dx
// and dy shift the medium's centre by fractions of the frame's width and
// height.
type pose struct {
	yaw, pitch, roll float64
	dist, dx, dy     float64
}

// camera is a pinhole camera of a w×h frame with a webcam's field of
// view (about 60° across).
type camera struct {
	w, h  int
	focal float64
}

func newCamera(w, h int) camera { return camera{w: w, h: h, focal: 0.87 * float64(w)} }

// corners projects the four corners of a medium whose picture is tw×th
// and which covers cover × the frame's width when facing the camera at
// distance 1, centred at (cx, cy) (fractions of the frame).
func (c camera) corners(tw, th int, cover, cx, cy float64, p pose) [4][2]float64 {
	a := cover * float64(c.w) / c.focal
	b := a * float64(th) / float64(tw)
	sy, cyw := math.Sincos(p.yaw)
	sp, cp := math.Sincos(p.pitch)
	sr, cr := math.Sincos(p.roll)
	// Centre of the medium in camera space: shifting it by dx of the
	// frame's width at its distance keeps the shift in frame pixels.
	z0 := p.dist
	ox := (cx - 0.5 + p.dx) * float64(c.w) / c.focal * z0
	oy := (cy - 0.5 + p.dy) * float64(c.h) / c.focal * z0
	var out [4][2]float64
	for i, q := range [4][2]float64{{-a / 2, -b / 2}, {a / 2, -b / 2}, {a / 2, b / 2}, {-a / 2, b / 2}} {
		x, y, z := q[0], q[1], 0.0
		// Yaw: a positive angle brings +x towards the camera (−z).
		x, z = x*cyw+z*sy, -x*sy+z*cyw
		// Pitch: a positive angle brings +y (down) towards the camera.
		y, z = y*cp+z*sp, -y*sp+z*cp
		x, y = x*cr-y*sr, x*sr+y*cr
		X, Y, Z := x+ox, y+oy, z+z0
		out[i] = [2]float64{float64(c.w)/2 + c.focal*X/Z, float64(c.h)/2 + c.focal*Y/Z}
	}
	return out
}

// composite draws tex onto dst through the projection of its corners,
// sampling 2×2 points per pixel (the medium is usually shrunk) and
// using tex's alpha (an ID card's rounded corners).
func composite(dst *image.RGBA, tex *image.RGBA, quad [4][2]float64) {
	tw, th := tex.Rect.Dx(), tex.Rect.Dy()
	src := [4][2]float64{{0, 0}, {float64(tw), 0}, {float64(tw), float64(th)}, {0, float64(th)}}
	inv := homography(src, quad).inverse()
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, q := range quad {
		x0, y0 = math.Min(x0, q[0]), math.Min(y0, q[1])
		x1, y1 = math.Max(x1, q[0]), math.Max(y1, q[1])
	}
	b := dst.Rect.Intersect(image.Rect(int(x0)-1, int(y0)-1, int(x1)+2, int(y1)+2))
	offs := [4][2]float64{{0.25, 0.25}, {0.75, 0.25}, {0.25, 0.75}, {0.75, 0.75}}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			var acc [4]float64
			for _, o := range offs {
				u, v := inv.apply(float64(x)+o[0], float64(y)+o[1])
				if u < 0 || v < 0 || u >= float64(tw) || v >= float64(th) {
					continue
				}
				bilinear(tex, u-0.5, v-0.5, &acc)
			}
			if acc[3] == 0 {
				continue
			}
			i := dst.PixOffset(x, y)
			// acc holds premultiplied colour summed over 4 samples.
			a := acc[3] / (4 * 255)
			for c := 0; c < 3; c++ {
				dst.Pix[i+c] = clamp8(acc[c]/4 + float64(dst.Pix[i+c])*(1-a))
			}
		}
	}
}

// bilinear adds tex's premultiplied colour at (u, v) to acc.
func bilinear(tex *image.RGBA, u, v float64, acc *[4]float64) {
	w, h := tex.Rect.Dx(), tex.Rect.Dy()
	x0, y0 := int(math.Floor(u)), int(math.Floor(v))
	fx, fy := u-float64(x0), v-float64(y0)
	for j := 0; j < 2; j++ {
		for i := 0; i < 2; i++ {
			xx, yy := min(max(x0+i, 0), w-1), min(max(y0+j, 0), h-1)
			wgt := (1 - math.Abs(float64(i)-fx)) * (1 - math.Abs(float64(j)-fy))
			p := tex.Pix[yy*tex.Stride+4*xx:]
			al := float64(p[3]) / 255
			acc[0] += wgt * float64(p[0]) * al
			acc[1] += wgt * float64(p[1]) * al
			acc[2] += wgt * float64(p[2]) * al
			acc[3] += wgt * float64(p[3])
		}
	}
}

func clamp8(v float64) uint8 {
	if v <= 0 {
		return 0
	}
	if v >= 255 {
		return 255
	}
	return uint8(v + 0.5)
}

// toRGBA copies img into a new RGBA image at the origin.
func toRGBA(img image.Image) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Rect, img, b.Min, draw.Src)
	return out
}

// room returns the attacker's room, w×h: the walls, map and lamp of the
// cap videos' room (the strips of a frame left and right of the man,
// without any face), mirrored and shifted at random so that the
// background differs between sequences.
func room(frame image.Image, w, h int, rng *rand.Rand) *image.RGBA {
	src := toRGBA(frame)
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	// Columns without the man in cap12_edit's first frames: the map and
	// lamp on the left, the bare wall on the right.
	var cols []int
	for x := 0; x < sw*135/400; x++ {
		cols = append(cols, x)
	}
	for x := sw * 285 / 400; x < sw; x++ {
		cols = append(cols, x)
	}
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	shift := rng.IntN(len(cols))
	mirror := rng.IntN(2) == 1
	scale := float64(sh) / float64(h) * (0.8 + 0.2*rng.Float64())
	for y := 0; y < h; y++ {
		sy := min(int(float64(y)*scale), sh-1)
		for x := 0; x < w; x++ {
			k := (int(float64(x)*scale) + shift) % (2 * len(cols))
			if k >= len(cols) { // bounce back rather than jump
				k = 2*len(cols) - 1 - k
			}
			if mirror {
				k = len(cols) - 1 - k
			}
			copy(out.Pix[out.PixOffset(x, y):out.PixOffset(x, y)+4], src.Pix[src.PixOffset(cols[k], sy):])
		}
	}
	return out
}

// drawThumb paints a thumb holding the medium: a skin-coloured rounded
// shape reaching from outside the quad's bottom edge (at fraction t
// along it) over the medium.
func drawThumb(dst *image.RGBA, quad [4][2]float64, t float64, skin color.RGBA, rng *rand.Rand) {
	// Bottom edge from corner 3 to corner 2; "inwards" towards the top.
	bx := quad[3][0] + t*(quad[2][0]-quad[3][0])
	by := quad[3][1] + t*(quad[2][1]-quad[3][1])
	tx := quad[0][0] + t*(quad[1][0]-quad[0][0])
	ty := quad[0][1] + t*(quad[1][1]-quad[0][1])
	ex, ey := quad[2][0]-quad[3][0], quad[2][1]-quad[3][1]
	edge := math.Hypot(ex, ey)
	ux, uy := (tx-bx)/math.Hypot(tx-bx, ty-by), (ty-by)/math.Hypot(tx-bx, ty-by)
	length := edge * (0.16 + 0.08*rng.Float64())
	width := edge * (0.07 + 0.03*rng.Float64())
	// The thumb's axis runs from below the edge to length above it.
	cx, cy := bx+ux*length*0.25, by+uy*length*0.25
	b := dst.Rect.Intersect(image.Rect(int(cx-length), int(cy-length), int(cx+length), int(cy+length)))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			dx, dy := float64(x)-cx, float64(y)-cy
			along := dx*ux + dy*uy // towards the medium's top
			across := -dx*uy + dy*ux
			r := (along/(length*0.75))*(along/(length*0.75)) + (across/(width/2))*(across/(width/2))
			if r > 1 {
				continue
			}
			// Rounded shading: darker at the sides, a nail-ish highlight
			// near the tip.
			shade := 0.75 + 0.25*math.Sqrt(1-math.Min(1, (across/(width/2))*(across/(width/2))))
			if along > length*0.4 && math.Abs(across) < width*0.25 {
				shade += 0.12
			}
			i := dst.PixOffset(x, y)
			edgeA := math.Min(1, (1-r)*6) // soft outline
			dst.Pix[i] = clamp8(float64(skin.R)*shade*edgeA + float64(dst.Pix[i])*(1-edgeA))
			dst.Pix[i+1] = clamp8(float64(skin.G)*shade*edgeA + float64(dst.Pix[i+1])*(1-edgeA))
			dst.Pix[i+2] = clamp8(float64(skin.B)*shade*edgeA + float64(dst.Pix[i+2])*(1-edgeA))
		}
	}
}

// skinTones are hands of several complexions.
var skinTones = []color.RGBA{
	{233, 190, 160, 255}, {214, 160, 120, 255}, {170, 115, 80, 255}, {110, 70, 45, 255}, {245, 205, 180, 255},
}

// cameraLook makes a frame look taken by a webcam: a slight defocus of
// the near medium, sensor noise and an exposure change.
func cameraLook(img *image.RGBA, rng *rand.Rand, noise, gain float64) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	src := append([]uint8(nil), img.Pix...)
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			i := img.PixOffset(x, y)
			for c := 0; c < 3; c++ {
				s := 4*float64(src[i+c]) + float64(src[i+c-4]) + float64(src[i+c+4]) + float64(src[i+c-img.Stride]) + float64(src[i+c+img.Stride])
				img.Pix[i+c] = clamp8(gain*s/8 + noise*rng.NormFloat64())
			}
		}
	}
}
