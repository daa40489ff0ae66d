package app

import (
	"image"
	"math"

	"github.com/verifyd/verifyd/tfjs"
	"github.com/verifyd/verifyd/tfjs/faceapi"
)

// The face chip the recognition network is given. face-api's recognition
// network is a port of dlib's ResNet model
// (dlib_face_recognition_resnet_model_v1), which was trained on "face
// chips": 150×150 crops made by dlib's get_face_chip_details(shape, 150,
// 0.25) and extract_image_chip — the face rotated upright and scaled by a
// least-squares similarity transform that maps 33 of its 68 landmarks
// onto dlib's mean face shape, with a padding of 25 % of the shape's size
// on every side. face-api (and its reference pipeline, Analyzer.Faces)
// cuts an unrotated square instead (alignDlib), so a tilted head reaches
// the network tilted. Measured on the different-photographs data
// (docs/accuracy.md "Faces"), the chip separates people better.
const (
	chipSize    = 150  // the network's input side
	chipPadding = 0.25 // dlib's padding for this model
)

// dlibMeanFaceX and dlibMeanFaceY are dlib's mean face shape
// (dlib/image_transforms/interpolation.h, get_face_chip_details): the
// average positions of the iBUG 300-W points 17–67 in a unit square.
var (
	dlibMeanFaceX = [51]float64{
		0.000213256, 0.0752622, 0.18113, 0.29077, 0.393397, 0.586856, 0.689483, 0.799124,
		0.904991, 0.98004, 0.490127, 0.490127, 0.490127, 0.490127, 0.36688, 0.426036,
		0.490127, 0.554217, 0.613373, 0.121737, 0.187122, 0.265825, 0.334606, 0.260918,
		0.182743, 0.645647, 0.714428, 0.793132, 0.858516, 0.79751, 0.719335, 0.254149,
		0.340985, 0.428858, 0.490127, 0.551395, 0.639268, 0.726104, 0.642159, 0.556721,
		0.490127, 0.423532, 0.338094, 0.290379, 0.428096, 0.490127, 0.552157, 0.689874,
		0.553364, 0.490127, 0.42689,
	}
	dlibMeanFaceY = [51]float64{
		0.106454, 0.038915, 0.0187482, 0.0344891, 0.0773906, 0.0773906, 0.0344891,
		0.0187482, 0.038915, 0.106454, 0.203352, 0.307009, 0.409805, 0.515625, 0.587326,
		0.609345, 0.628106, 0.609345, 0.587326, 0.216423, 0.178758, 0.179852, 0.231733,
		0.245099, 0.244077, 0.231733, 0.179852, 0.178758, 0.216423, 0.244077, 0.245099,
		0.780233, 0.745405, 0.727388, 0.742578, 0.727388, 0.745405, 0.780233, 0.864805,
		0.902192, 0.909281, 0.902192, 0.864805, 0.784792, 0.778746, 0.785343, 0.778746,
		0.784792, 0.824182, 0.831803, 0.824182,
	}
)

// similarity is the map (x, y) → (a·x − b·y + tx, b·x + a·y + ty): a
// rotation, a uniform scale and a translation.
type similarity struct{ a, b, tx, ty float64 }

func (s similarity) apply(x, y float64) (float64, float64) {
	return s.a*x - s.b*y + s.tx, s.b*x + s.a*y + s.ty
}

// fitSimilarity is the least-squares similarity mapping src onto dst
// (dlib's find_similarity_transform: Umeyama's method, no reflection).
func fitSimilarity(src, dst []faceapi.Point) similarity {
	n := float64(len(src))
	var sx, sy, dx, dy float64
	for i := range src {
		sx, sy = sx+src[i].X/n, sy+src[i].Y/n
		dx, dy = dx+dst[i].X/n, dy+dst[i].Y/n
	}
	var num, cross, den float64
	for i := range src {
		x, y := src[i].X-sx, src[i].Y-sy
		u, v := dst[i].X-dx, dst[i].Y-dy
		num += x*u + y*v
		cross += x*v - y*u
		den += x*x + y*y
	}
	if den == 0 {
		return similarity{a: 1, tx: dx - sx, ty: dy - sy}
	}
	a, b := num/den, cross/den
	return similarity{a: a, b: b, tx: dx - (a*sx - b*sy), ty: dy - (b*sx + a*sy)}
}

// chipTransform is dlib's get_face_chip_details(shape, size, padding) for
// 68 landmarks: the map from the chip's pixels to the image's. dlib fits
// the points 27–54 and 60–64 (nose, eyes, upper lip and mouth corners),
// leaving out the jaw, the brows and the lower lip, which move with
// expression.
func chipTransform(pts []faceapi.Point, size int, padding float64) similarity {
	var chip, img []faceapi.Point
	for i := 27; i < 68; i++ {
		if (i >= 55 && i <= 59) || i >= 65 {
			continue
		}
		chip = append(chip, faceapi.Point{
			X: (padding + dlibMeanFaceX[i-17]) / (2*padding + 1) * float64(size),
			Y: (padding + dlibMeanFaceY[i-17]) / (2*padding + 1) * float64(size),
		})
		img = append(img, pts[i])
	}
	return fitSimilarity(chip, img)
}

// faceChip cuts the size×size chip m maps from img ([H, W, 3], 0..255),
// sampling bilinearly, black outside img. When a chip pixel spans more
// than two image pixels, the region is first halved (2×2 means) until it
// does not, as dlib's extract_image_chip does with an image pyramid, so
// that a large face is not aliased.
func faceChip(img *tfjs.Tensor, m similarity, size int) *tfjs.Tensor {
	h, w, _ := img.HWC()
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, c := range [][2]float64{{0, 0}, {float64(size), 0}, {0, float64(size)}, {float64(size), float64(size)}} {
		x, y := m.apply(c[0], c[1])
		minX, minY, maxX, maxY = math.Min(minX, x), math.Min(minY, y), math.Max(maxX, x), math.Max(maxY, y)
	}
	r := image.Rect(int(math.Floor(minX))-2, int(math.Floor(minY))-2, int(math.Ceil(maxX))+3, int(math.Ceil(maxY))+3).
		Intersect(image.Rect(0, 0, w, h))
	if r.Empty() {
		return tfjs.New(size, size, 3)
	}
	region := faceapi.Crop(img, r)
	m.tx -= float64(r.Min.X)
	m.ty -= float64(r.Min.Y)
	for s := math.Hypot(m.a, m.b); s > 2; s /= 2 {
		region = halveTensor(region)
		// Pixel i of the half is the mean of pixels 2i and 2i+1, centred
		// at 2i + 0.5.
		m = similarity{a: m.a / 2, b: m.b / 2, tx: (m.tx - 0.5) / 2, ty: (m.ty - 0.5) / 2}
	}
	return warp(region, m, size)
}

// warp samples img at m(x, y) for each pixel (x, y) of a size×size
// output, bilinearly (pixel centres at whole coordinates), black outside.
func warp(img *tfjs.Tensor, m similarity, size int) *tfjs.Tensor {
	return tfjs.WarpSimilarity(img, m.a, m.b, m.tx, m.ty, size)
}

// halveTensor returns t at half its size, each value the mean of a 2×2
// block (an odd last row or column is dropped).
func halveTensor(t *tfjs.Tensor) *tfjs.Tensor {
	h, w, c := t.HWC()
	oh, ow := h/2, w/2
	out := tfjs.New(oh, ow, c)
	for y := 0; y < oh; y++ {
		r0, r1 := t.Data[2*y*w*c:], t.Data[(2*y+1)*w*c:]
		for x := 0; x < ow; x++ {
			for ch := 0; ch < c; ch++ {
				i := 2*x*c + ch
				out.Data[(y*ow+x)*c+ch] = (r0[i] + r0[i+c] + r1[i] + r1[i+c]) / 4
			}
		}
	}
	return out
}

// mirror returns t flipped left to right.
func mirror(t *tfjs.Tensor) *tfjs.Tensor {
	h, w, c := t.HWC()
	out := tfjs.New(h, w, c)
	for y := 0; y < h; y++ {
		row := t.Data[y*w*c : (y+1)*w*c]
		o := out.Data[y*w*c : (y+1)*w*c]
		for x := 0; x < w; x++ {
			copy(o[x*c:(x+1)*c], row[(w-1-x)*c:(w-x)*c])
		}
	}
	return out
}

// FaceChip returns dlib's size×size face chip with the given padding
// (get_face_chip_details and extract_image_chip) of the face whose 68
// landmarks are pts, in img's pixels ([H, W, 3], 0..255). The engine
// describes FaceChip(img, pts, 150, 0.25); other sizes and paddings are
// for measurements (internal/faceeval TestDescriptorVariants).
func FaceChip(img *tfjs.Tensor, pts []faceapi.Point, size int, padding float64) *tfjs.Tensor {
	return faceChip(img, chipTransform(pts, size, padding), size)
}
