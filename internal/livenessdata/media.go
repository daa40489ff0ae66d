package livenessdata

import (
	"image"
	"math"
	"math/rand/v2"

	xdraw "golang.org/x/image/draw"
)

// This file makes the flat media an attacker holds to the camera: a
// photo printed on paper, a picture shown on a phone or monitor, and
// (in attacks.go) an ID card whose portrait is the person's.

// cropFace cuts a picture of w×h around the face box f of img: the face
// is faceFrac of the picture's width, its centre at (0.5, centreY).
// Parts outside img repeat its edge pixels.
func cropFace(img image.Image, f [4]int, w, h int, faceFrac, centreY float64) *image.RGBA {
	fw := float64(f[2]-f[0]) / faceFrac
	fh := fw * float64(h) / float64(w)
	cx, cy := float64(f[0]+f[2])/2, float64(f[1]+f[3])/2
	src := toRGBA(img)
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	for y := 0; y < h; y++ {
		sy := cy - fh*centreY + (float64(y)+0.5)*fh/float64(h)
		for x := 0; x < w; x++ {
			sx := cx - fw/2 + (float64(x)+0.5)*fw/float64(w)
			var acc [4]float64
			bilinear(src, math.Min(math.Max(sx-0.5, 0), float64(sw-1)), math.Min(math.Max(sy-0.5, 0), float64(sh-1)), &acc)
			i := out.PixOffset(x, y)
			out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = clamp8(acc[0]), clamp8(acc[1]), clamp8(acc[2]), 255
		}
	}
	return out
}

// printed renders photo as printed on paper at the texture's scale: a
// white margin, the printer's gamut (duller, warmer or cooler, blacks
// lifted), its screen (a laser printer's halftone dots or an inkjet's
// random dither) and the paper's grain.
func printed(photo *image.RGBA, rng *rand.Rand) *image.RGBA {
	pw, ph := photo.Rect.Dx(), photo.Rect.Dy()
	margin := int(float64(pw) * (0.03 + 0.05*rng.Float64()))
	out := image.NewRGBA(image.Rect(0, 0, pw+2*margin, ph+2*margin))
	paper := [3]float64{245 + 8*rng.Float64(), 243 + 8*rng.Float64(), 235 + 12*rng.Float64()}
	sat := 0.65 + 0.25*rng.Float64()
	warm := -10 + 25*rng.Float64() // red up, blue down when positive
	lift := 12 + 18*rng.Float64()
	contrast := 0.8 + 0.15*rng.Float64()
	laser := rng.IntN(2) == 0
	cell := 3.0 + 2.5*rng.Float64() // halftone cell in texture pixels
	angles := [3]float64{15, 75, 0}
	var rot [3][2]float64
	for c := range rot {
		rot[c][0], rot[c][1] = math.Sincos((angles[c] + 10*rng.Float64()) * math.Pi / 180)
	}
	// Low-frequency paper unevenness.
	fx, fy := 0.01+0.02*rng.Float64(), 0.01+0.02*rng.Float64()
	ph0 := rng.Float64() * 6
	for y := 0; y < out.Rect.Dy(); y++ {
		for x := 0; x < out.Rect.Dx(); x++ {
			i := out.PixOffset(x, y)
			grain := 1 + 0.015*rng.NormFloat64() + 0.02*math.Sin(fx*float64(x)+ph0)*math.Sin(fy*float64(y))
			px, py := x-margin, y-margin
			if px < 0 || py < 0 || px >= pw || py >= ph {
				for c := 0; c < 3; c++ {
					out.Pix[i+c] = clamp8(paper[c] * grain)
				}
				out.Pix[i+3] = 255
				continue
			}
			p := photo.Pix[photo.PixOffset(px, py):]
			r, g, b := float64(p[0]), float64(p[1]), float64(p[2])
			l := 0.299*r + 0.587*g + 0.114*b
			rgb := [3]float64{l + sat*(r-l) + warm, l + sat*(g-l), l + sat*(b-l) - warm}
			for c := 0; c < 3; c++ {
				v := lift + contrast*rgb[c]*(paper[c]-lift)/255
				// Ink coverage of the subtractive primary (C, M, Y).
				ink := 1 - math.Min(1, math.Max(0, v/paper[c]))
				var on float64
				if laser {
					// Distance to the nearest dot centre of this
					// primary's rotated screen; the dot's area is the
					// coverage.
					u := (float64(x)*rot[c][1] + float64(y)*rot[c][0]) / cell
					w := (-float64(x)*rot[c][0] + float64(y)*rot[c][1]) / cell
					du, dw := u-math.Floor(u)-0.5, w-math.Floor(w)-0.5
					d := math.Hypot(du, dw)
					rad := math.Sqrt(ink / math.Pi)
					on = math.Min(1, math.Max(0, (rad-d)*cell+0.5)) // anti-aliased edge
				} else {
					if rng.Float64() < ink {
						on = 1
					}
					on = 0.6*on + 0.4*ink // ink spreads into the paper
				}
				out.Pix[i+c] = clamp8(paper[c] * (1 - on*0.92) * grain)
			}
			out.Pix[i+3] = 255
		}
	}
	return out
}

// screenShown renders picture as shown on a phone or monitor and
// photographed: the picture at the display's resolution, every display
// pixel three vertical subpixel stripes with a dark matrix between them
// (which the camera resamples into moiré), the display's brighter,
// bluer tone curve, a black bezel and a reflection of the room's light.
// sub is the texture pixels per subpixel and grid (0–1) the contrast
// of the subpixel pattern after the lens; glare moves the reflection
// (the hand tilting the display moves it across the glass).
func screenShown(picture image.Image, displayW int, sub int, grid, bezel float64, tone [3]float64, glareX, glareY, glareR float64) *image.RGBA {
	b := picture.Bounds()
	displayH := displayW * b.Dy() / b.Dx()
	disp := image.NewRGBA(image.Rect(0, 0, displayW, displayH))
	xdraw.ApproxBiLinear.Scale(disp, disp.Rect, picture, b, xdraw.Src, nil)
	px := 3 * sub // texture pixels per display pixel
	bz := int(bezel * float64(displayW*px))
	w, h := displayW*px+2*bz, displayH*px+2*bz
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	corner := float64(bz) * 1.5
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := out.PixOffset(x, y)
			out.Pix[i+3] = 255
			// Rounded outer corners: transparent outside.
			if cx, cy := math.Max(math.Max(corner-float64(x), float64(x)-(float64(w)-corner)), 0), math.Max(math.Max(corner-float64(y), float64(y)-(float64(h)-corner)), 0); math.Hypot(cx, cy) > corner {
				out.Pix[i+3] = 0
				continue
			}
			gx, gy := (float64(x)/float64(w)-glareX)/glareR, (float64(y)/float64(h)-glareY)/glareR
			glare := 90 * math.Exp(-(gx*gx + gy*gy))
			dx, dy := x-bz, y-bz
			if dx < 0 || dy < 0 || dx >= displayW*px || dy >= displayH*px {
				for c := 0; c < 3; c++ {
					out.Pix[i+c] = clamp8(18 + glare*0.6)
				}
				continue
			}
			p := disp.Pix[disp.PixOffset(dx/px, dy/px):]
			c := (dx % px) / sub // which subpixel stripe
			gap := dy%px == px-1 || (sub > 1 && dx%sub == sub-1)
			for k := 0; k < 3; k++ {
				v := tone[k] * math.Pow(float64(p[k])/255, 0.85) * 255
				// The stripes and the dark matrix between them, seen
				// through the camera's lens, modulate the picture rather
				// than replace it.
				switch {
				case gap:
					v *= 1 - 0.6*grid
				case k == c:
					v *= 1 + grid
				default:
					v *= 1 - 0.5*grid
				}
				out.Pix[i+k] = clamp8(8 + v + glare)
			}
		}
	}
	return out
}

// blur softens img by a Gaussian of sigma pixels, separably: the camera
// lens and sensor do this to a medium's fine structure.
func blur(img *image.RGBA, sigma float64) {
	r := int(math.Ceil(2.5 * sigma))
	k := make([]float64, 2*r+1)
	sum := 0.0
	for i := range k {
		d := float64(i - r)
		k[i] = math.Exp(-d * d / (2 * sigma * sigma))
		sum += k[i]
	}
	for i := range k {
		k[i] /= sum
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	tmp := make([]float64, w*h*4)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			for c := 0; c < 4; c++ {
				var s float64
				for j := -r; j <= r; j++ {
					xx := min(max(x+j, 0), w-1)
					s += k[j+r] * float64(img.Pix[img.PixOffset(xx, y)+c])
				}
				tmp[(y*w+x)*4+c] = s
			}
		}
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			for c := 0; c < 4; c++ {
				var s float64
				for j := -r; j <= r; j++ {
					yy := min(max(y+j, 0), h-1)
					s += k[j+r] * tmp[(yy*w+x)*4+c]
				}
				img.Pix[img.PixOffset(x, y)+c] = clamp8(s)
			}
		}
	}
}
