package liveness

// meanFace is a generic three-dimensional face in the 68-landmark layout,
// in units of the distance between the eye centres, x to the right of
// the image, y down, z towards the camera, origin between the eyes.
//
// x and y are the mean of face-api's landmarks on the 14 frontal sample
// faces of @vladmandic/face-api (levelled by the eyes, scaled by their
// distance, averaged and made symmetric). z is not measured: it is set
// from adult facial anthropometry (the eye centres ~63 mm apart are one
// unit): the nose tip ~28 mm in front of the inner eye corners, the
// outer eye corners ~15 mm behind them, the face's outline at the
// temples ~55 mm behind, rising to the chin. Only the ratios matter, and
// only approximately: the model turns landmark shifts into angles, and
// the thresholds are angles a person turning on request clearly exceeds.
var meanFace = [68][3]float64{
	{-1.141, -0.031, -0.90}, {-1.131, 0.276, -0.85}, {-1.082, 0.561, -0.75}, {-1.017, 0.819, -0.62},
	{-0.904, 1.105, -0.45}, {-0.743, 1.347, -0.28}, {-0.558, 1.533, -0.10}, {-0.333, 1.721, 0.05},
	{0.000, 1.831, 0.10},
	{0.333, 1.721, 0.05}, {0.558, 1.533, -0.10}, {0.743, 1.347, -0.28}, {0.904, 1.105, -0.45},
	{1.017, 0.819, -0.62}, {1.082, 0.561, -0.75}, {1.131, 0.276, -0.85}, {1.141, -0.031, -0.90},
	// Brows 17–26.
	{-0.904, -0.287, -0.25}, {-0.773, -0.379, -0.08}, {-0.596, -0.390, 0.05}, {-0.432, -0.353, 0.12}, {-0.283, -0.290, 0.15},
	{0.283, -0.290, 0.15}, {0.432, -0.353, 0.12}, {0.596, -0.390, 0.05}, {0.773, -0.379, -0.08}, {0.904, -0.287, -0.25},
	// Nose bridge 27–30, nostrils 31–35.
	{0.000, 0.064, 0.10}, {0.000, 0.294, 0.20}, {0.000, 0.509, 0.32}, {0.000, 0.697, 0.45},
	{-0.196, 0.766, 0.15}, {-0.109, 0.804, 0.25}, {0.000, 0.833, 0.30}, {0.109, 0.804, 0.25}, {0.196, 0.766, 0.15},
	// Eyes 36–41 (right of the image's left), 42–47.
	{-0.685, -0.016, -0.25}, {-0.583, -0.063, -0.10}, {-0.431, -0.062, 0.00}, {-0.299, 0.023, 0.00}, {-0.423, 0.062, 0.00}, {-0.579, 0.056, -0.10},
	{0.299, 0.023, 0.00}, {0.431, -0.062, 0.00}, {0.583, -0.063, -0.10}, {0.685, -0.016, -0.25}, {0.579, 0.056, -0.10}, {0.423, 0.062, 0.00},
	// Outer lips 48–59.
	{-0.440, 1.079, -0.05}, {-0.288, 1.041, 0.10}, {-0.098, 1.007, 0.20}, {0.000, 1.028, 0.25}, {0.098, 1.007, 0.20}, {0.288, 1.041, 0.10},
	{0.440, 1.079, -0.05}, {0.282, 1.254, 0.10}, {0.140, 1.337, 0.18}, {0.000, 1.362, 0.20}, {-0.140, 1.337, 0.18}, {-0.282, 1.254, 0.10},
	// Inner lips 60–67.
	{-0.405, 1.083, -0.02}, {-0.133, 1.099, 0.15}, {0.000, 1.102, 0.18}, {0.133, 1.099, 0.15},
	{0.405, 1.083, -0.02}, {0.131, 1.197, 0.15}, {0.000, 1.212, 0.17}, {-0.131, 1.197, 0.15},
}

// rigid are the landmarks that move with the skull: the outline, brows,
// nose and eye corners. Eyelids and lips move on their own (blinking,
// talking) and would read as head motion.
var rigid = []int{
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
	27, 28, 29, 30, 31, 32, 33, 34, 35,
	36, 39, 42, 45,
}
