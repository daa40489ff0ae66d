// Package qualitytest generates synthetic photos of documents, and the
// degradations of real photos (blur, exposure, noise, glare, JPEG), for
// testing and calibrating package quality. Everything is reproducible from
// a seed; nothing is downloaded.
package qualitytest

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math"
	"math/rand/v2"
)

// Scene describes a photo of a synthetic ID-1 card on a plain background.
type Scene struct {
	// Width and Height of the photo; zero means 1000×750.
	Width, Height int
	// DocWidth is the card's width as a share of the photo's; zero means 0.8.
	DocWidth float64
	// Angle rotates the card, in degrees.
	Angle float64
	// Background is the table's colour; zero means a mid-grey brown.
	Background color.RGBA
	// Seed chooses the card's design and the background's noise.
	Seed uint64
}

// Photo renders the scene and returns it with the card's bounding box.
func Photo(s Scene) (*image.RGBA, image.Rectangle) {
	W, H := s.Width, s.Height
	if W <= 0 || H <= 0 {
		W, H = 1000, 750
	}
	frac := s.DocWidth
	if frac <= 0 {
		frac = 0.8
	}
	bgc := s.Background
	if bgc == (color.RGBA{}) {
		bgc = color.RGBA{96, 84, 72, 255}
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x9a11e7))
	dw := int(frac * float64(W))
	dh := int(float64(dw) * 54 / 85.6)
	doc := Card(dw, dh, s.Seed)

	out := image.NewRGBA(image.Rect(0, 0, W, H))
	a := s.Angle * math.Pi / 180
	cos, sin := math.Cos(a), math.Sin(a)
	cx, cy := float64(W)/2, float64(H)/2
	hx, hy := float64(dw)/2, float64(dh)/2
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			// Background: the colour, a gentle gradient and a little noise.
			g := 1 + 0.08*(float64(x)/float64(W)-0.5) - 0.05*(float64(y)/float64(H)-0.5)
			n := rng.NormFloat64() * 2
			c := [3]float64{float64(bgc.R)*g + n, float64(bgc.G)*g + n, float64(bgc.B)*g + n}
			// Card: inverse-rotate the pixel centre into card coordinates.
			px, py := float64(x)+0.5-cx, float64(y)+0.5-cy
			u := cos*px + sin*py + hx - 0.5
			v := -sin*px + cos*py + hy - 0.5
			if u >= -0.5 && v >= -0.5 && u < float64(dw)-0.5 && v < float64(dh)-0.5 {
				c = bilinear(doc, u, v)
			}
			i := out.PixOffset(x, y)
			out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = clamp(c[0]), clamp(c[1]), clamp(c[2]), 255
		}
	}
	// Ground truth: the rotated card's bounding box.
	bw := float64(dw)*math.Abs(cos) + float64(dh)*math.Abs(sin)
	bh := float64(dw)*math.Abs(sin) + float64(dh)*math.Abs(cos)
	box := image.Rect(int(math.Round(cx-bw/2)), int(math.Round(cy-bh/2)), int(math.Round(cx+bw/2)), int(math.Round(cy+bh/2)))
	return out, box.Intersect(out.Bounds())
}

func bilinear(img *image.RGBA, u, v float64) [3]float64 {
	b := img.Bounds()
	x0, y0 := int(math.Floor(u)), int(math.Floor(v))
	fx, fy := u-float64(x0), v-float64(y0)
	wx, wy := [2]float64{1 - fx, fx}, [2]float64{1 - fy, fy}
	var c [3]float64
	for j := 0; j < 2; j++ {
		for i := 0; i < 2; i++ {
			w := wx[i] * wy[j]
			x := min(max(x0+i, 0), b.Dx()-1)
			y := min(max(y0+j, 0), b.Dy()-1)
			p := img.Pix[img.PixOffset(x, y):]
			c[0] += w * float64(p[0])
			c[1] += w * float64(p[1])
			c[2] += w * float64(p[2])
		}
	}
	return c
}

// Card draws a w×h synthetic ID card: a light tinted background with a
// guilloche of fine wavy lines and a microprint band (high-frequency
// detail), a photo box, lines of dark "text" made of random strokes, and
// two MRZ-like lines of monospaced "characters".
func Card(w, h int, seed uint64) *image.RGBA {
	rng := rand.New(rand.NewPCG(seed, 0xca4d))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	paper := color.RGBA{uint8(226 + rng.IntN(12)), uint8(224 + rng.IntN(12)), uint8(210 + rng.IntN(14)), 255}
	fill(img, img.Bounds(), paper)
	k := float64(w) / 800 // design scale

	// Guilloche: thin sinusoids over the whole card.
	line := color.RGBA{paper.R - 45, paper.G - 30, paper.B - 10, 255}
	for n := 0; n < 14; n++ {
		y0 := float64(h) * (float64(n) + 0.5) / 14
		amp, lambda, ph := (6+8*rng.Float64())*k, (30+40*rng.Float64())*k, rng.Float64()*2*math.Pi
		for x := 0; x < w; x++ {
			y := int(math.Round(y0 + amp*math.Sin(2*math.Pi*float64(x)/lambda+ph)))
			if y >= 0 && y < h {
				img.SetRGBA(x, y, line)
			}
		}
	}
	// Microprint band: alternating 1-px dots, a period of 3 px.
	band := image.Rect(int(30*k), int(12*k), w-int(30*k), int(22*k))
	ink := color.RGBA{90, 80, 110, 255}
	for y := band.Min.Y; y < band.Max.Y; y += 3 {
		for x := band.Min.X + (y/3)%3; x < band.Max.X; x += 3 {
			img.SetRGBA(x, y, ink)
		}
	}
	// Photo box with a soft gradient and a head-like ellipse.
	pb := image.Rect(int(30*k), int(60*k), int(230*k), int(320*k))
	for y := pb.Min.Y; y < pb.Max.Y; y++ {
		for x := pb.Min.X; x < pb.Max.X; x++ {
			fx := (float64(x-pb.Min.X)/float64(pb.Dx()) - 0.5) / 0.32
			fy := (float64(y-pb.Min.Y)/float64(pb.Dy()) - 0.42) / 0.3
			c := color.RGBA{150, 160, 175, 255}
			if fx*fx+fy*fy < 1 {
				c = color.RGBA{200, 160, 130, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	text := color.RGBA{28, 28, 40, 255}
	// Printed fields: 6 lines of proportional "words" right of the photo.
	for l := 0; l < 6; l++ {
		y := int((80 + 40*float64(l)) * k)
		x := int(260 * k)
		end := int((460 + 300*rng.Float64()) * k)
		for x < end {
			for c := 3 + rng.IntN(6); c > 0 && x < end; c-- {
				glyph(img, rng, x, y, int(12*k), int(18*k), max(2, int(2*k)), text)
				x += int(14 * k)
			}
			x += int(12 * k)
		}
	}
	// MRZ-like zone: 2 lines of 36 monospaced characters.
	for l := 0; l < 2; l++ {
		y := int((380 + 50*float64(l)) * k)
		for c := 0; c < 36; c++ {
			glyph(img, rng, int((30+20.5*float64(c))*k), y, int(14*k), int(26*k), max(2, int(3*k)), text)
		}
	}
	return img
}

// glyph draws a "character": 2–4 strokes in a cw×ch cell at (x, y).
func glyph(img *image.RGBA, rng *rand.Rand, x, y, cw, ch, t int, c color.RGBA) {
	for s := 2 + rng.IntN(3); s > 0; s-- {
		switch rng.IntN(4) {
		case 0: // vertical
			xx := x + rng.IntN(max(1, cw-t))
			fill(img, image.Rect(xx, y, xx+t, y+ch), c)
		case 1: // horizontal
			yy := y + rng.IntN(max(1, ch-t))
			fill(img, image.Rect(x, yy, x+cw, yy+t), c)
		default: // diagonal
			up := rng.IntN(2) == 0
			for i := 0; i < ch; i++ {
				xx := x + i*(cw-t)/ch
				if up {
					xx = x + cw - t - i*(cw-t)/ch
				}
				fill(img, image.Rect(xx, y+i, xx+t, y+i+1), c)
			}
		}
	}
}

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

func clamp(v float64) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v + 0.5)
}

// toRGBA copies img into a new opaque *image.RGBA with bounds at the origin.
func toRGBA(img image.Image) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Bounds(), img, b.Min, draw.Src)
	for i := 3; i < len(out.Pix); i += 4 {
		out.Pix[i] = 255
	}
	return out
}

// Blur returns img blurred with a separable Gaussian of standard deviation
// sigma pixels (kernel radius 3σ, edges clamped).
func Blur(img image.Image, sigma float64) *image.RGBA {
	src := toRGBA(img)
	if sigma <= 0 {
		return src
	}
	r := int(math.Ceil(3 * sigma))
	k := make([]float32, 2*r+1)
	sum := 0.0
	for i := range k {
		d := float64(i - r)
		v := math.Exp(-d * d / (2 * sigma * sigma))
		k[i] = float32(v)
		sum += v
	}
	for i := range k {
		k[i] /= float32(sum)
	}
	w, h := src.Rect.Dx(), src.Rect.Dy()
	out := image.NewRGBA(src.Rect)
	ch := make([]float32, w*h)
	tmp := make([]float32, w*h)
	acc := make([]float32, w)
	for c := 0; c < 3; c++ {
		for i := range ch {
			ch[i] = float32(src.Pix[4*i+c])
		}
		// Horizontal: clamped at the edges.
		for y := 0; y < h; y++ {
			row, dst := ch[y*w:(y+1)*w], tmp[y*w:(y+1)*w]
			for x := 0; x < w; x++ {
				var s float32
				if x >= r && x+r < w {
					for i, kv := range k {
						s += kv * row[x+i-r]
					}
				} else {
					for i, kv := range k {
						s += kv * row[min(max(x+i-r, 0), w-1)]
					}
				}
				dst[x] = s
			}
		}
		// Vertical: whole rows at a time.
		for y := 0; y < h; y++ {
			clear(acc)
			for i, kv := range k {
				row := tmp[min(max(y+i-r, 0), h-1)*w:][:w]
				for x, v := range row {
					acc[x] += kv * v
				}
			}
			p := out.Pix[y*out.Stride:]
			for x, v := range acc {
				p[4*x+c] = clamp(float64(v))
			}
		}
	}
	for i := 3; i < len(out.Pix); i += 4 {
		out.Pix[i] = 255
	}
	return out
}

// Expose multiplies every channel by gain (an exposure change), clipping.
func Expose(img image.Image, gain float64) *image.RGBA {
	out := toRGBA(img)
	for i := 0; i < len(out.Pix); i += 4 {
		for c := 0; c < 3; c++ {
			out.Pix[i+c] = clamp(float64(out.Pix[i+c]) * gain)
		}
	}
	return out
}

// Noise adds Gaussian noise of standard deviation sigma levels, the same
// on the three channels (luminance noise).
func Noise(img image.Image, sigma float64, seed uint64) *image.RGBA {
	rng := rand.New(rand.NewPCG(seed, 0x4015e))
	out := toRGBA(img)
	for i := 0; i < len(out.Pix); i += 4 {
		n := rng.NormFloat64() * sigma
		for c := 0; c < 3; c++ {
			out.Pix[i+c] = clamp(float64(out.Pix[i+c]) + n)
		}
	}
	return out
}

// Glare paints a specular reflection: an ellipse centred at (cx, cy) with
// radii rx, ry, saturated white inside 70% of the radius and blending
// smoothly into the image outside it.
func Glare(img image.Image, cx, cy, rx, ry float64) *image.RGBA {
	out := toRGBA(img)
	b := out.Bounds()
	for y := max(0, int(cy-ry)); y < min(b.Dy(), int(cy+ry)+1); y++ {
		for x := max(0, int(cx-rx)); x < min(b.Dx(), int(cx+rx)+1); x++ {
			dx, dy := (float64(x)+0.5-cx)/rx, (float64(y)+0.5-cy)/ry
			d := math.Sqrt(dx*dx + dy*dy)
			if d >= 1 {
				continue
			}
			a := 1.0
			if d > 0.7 {
				a = (1 - d) / 0.3
				a = a * a * (3 - 2*a)
			}
			p := out.Pix[out.PixOffset(x, y):]
			for c := 0; c < 3; c++ {
				p[c] = clamp(float64(p[c])*(1-a) + 255*a)
			}
		}
	}
	return out
}

// JPEG compresses img at quality q and decodes it again (an *image.YCbCr,
// as photos reach the engine), returning the bytes too.
func JPEG(img image.Image, q int) (image.Image, []byte) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
		panic(err) // in-memory encoding of a valid image cannot fail
	}
	out, err := jpeg.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		panic(err)
	}
	return out, buf.Bytes()
}

// IoU is the intersection over union of two rectangles.
func IoU(a, b image.Rectangle) float64 {
	in := a.Intersect(b)
	i := float64(in.Dx() * in.Dy())
	u := float64(a.Dx()*a.Dy()+b.Dx()*b.Dy()) - i
	if u <= 0 {
		return 0
	}
	return i / u
}
