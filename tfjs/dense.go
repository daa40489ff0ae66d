package tfjs

import "fmt"

// Dense is a fully connected layer, TensorFlow.js's matMul(x, weights)
// followed by add(bias): x is flattened to a vector of K values (a
// feature map of any shape, e.g. the [1, 1, C] output of a global
// pooling), weights has shape [K, N] and bias [N] (nil for none). The
// result has shape [N]. The product is rounded to float32 before the bias
// is added, as two separate TensorFlow.js operations do.
func Dense(x, weights, bias *Tensor) *Tensor {
	out := VecMat(x, weights)
	if bias == nil {
		return out
	}
	if len(bias.Data) != len(out.Data) {
		panic(fmt.Sprintf("tfjs: dense layer with %d outputs and bias %v", len(out.Data), bias.Shape))
	}
	for i, b := range bias.Data {
		out.Data[i] += b
	}
	return out
}
