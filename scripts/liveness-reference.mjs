// Reference implementation for the tfjs/human parity test: runs the
// antispoof and liveness graph models of @vladmandic/human 3.3.6 on
// TensorFlow.js's WASM backend (single-threaded) with human's input
// preparation, over raw RGB images and face boxes, and prints the scores
// as JSON.
//
//   node scripts/liveness-reference.mjs JOB.json
//
// JOB.json:
//   {"npmDir": ".cache/npm-face",      // where scripts/npm-face-install put the packages
//    "modelDir": "models",             // antispoof.{json,bin}, liveness.{json,bin} (verifyd models fetch)
//    "items": [{"name": "...", "raw": "file.rgb", "width": W, "height": H,  // H*W*3 bytes, RGB
//               "box": [x0, y0, x1, y1],      // face box in pixels (end exclusive)
//               "cropOut": "file.f32"}]}      // optional: write the 192x192x3 float32 crop here
//
// Output: {"versions": {...}, "backend": "wasm", "results": [{"name",
// "real": antispoof output, "live": liveness output [0], "liveness": [both
// liveness outputs], "antispoofInput": [1, 128, 128, 3] shape}]}
//
// The preparation mirrors human's source (src/face/facemeshutil.ts
// cutAndResize, src/face/antispoof.ts and src/face/liveness.ts predict)
// with the same TensorFlow.js operations; human's own pipeline is not
// called because it crops around its BlazeFace detection, which the Go
// side does not run.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const require = createRequire(path.resolve(job.npmDir, 'package.json'));
const tf = require('@tensorflow/tfjs');
const wasm = require('@tensorflow/tfjs-backend-wasm');
// human's package.json is not in its "exports"; read it from the install.
const humanVersion = JSON.parse(fs.readFileSync(path.join(job.npmDir, 'node_modules/@vladmandic/human/package.json'), 'utf8')).version;

wasm.setThreadsCount(1);
await tf.setBackend('wasm');
await tf.ready();
if (tf.getBackend() !== 'wasm') throw new Error(`backend is ${tf.getBackend()}, want wasm`);

// loadModel reads a graph model.json and its shards from disk through a
// custom IO handler (tfjs without tfjs-node has no file:// loader).
async function loadModel(file) {
  const json = JSON.parse(fs.readFileSync(file, 'utf8'));
  const dir = path.dirname(file);
  const weightSpecs = [];
  const buffers = [];
  for (const group of json.weightsManifest) {
    weightSpecs.push(...group.weights);
    for (const p of group.paths) buffers.push(fs.readFileSync(path.join(dir, p)));
  }
  const all = Buffer.concat(buffers);
  const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength);
  return tf.loadGraphModel({
    load: async () => ({
      modelTopology: json.modelTopology,
      format: json.format,
      generatedBy: json.generatedBy,
      convertedBy: json.convertedBy,
      signature: json.signature,
      userDefinedMetadata: json.userDefinedMetadata,
      weightSpecs,
      weightData,
    }),
  });
}

const antispoof = await loadModel(path.join(job.modelDir, 'antispoof.json'));
const liveness = await loadModel(path.join(job.modelDir, 'liveness.json'));
const cropSize = 192; // human's FaceMesh input size (facemesh.ts: inputSize = model.inputs[0].shape[2])

// predict is human's antispoof.predict / liveness.predict without the
// result cache and the rounding to two decimals.
async function predict(model, face) {
  const resize = tf.image.resizeBilinear(face, [model.inputs[0].shape[2], model.inputs[0].shape[1]], false);
  const res = model.execute(resize);
  const data = Array.from(await res.data());
  const shape = resize.shape;
  tf.dispose([resize, res]);
  return { data, shape };
}

const results = [];
for (const item of job.items) {
  const bytes = fs.readFileSync(item.raw);
  if (bytes.length !== item.width * item.height * 3) throw new Error(`${item.raw}: ${bytes.length} bytes for ${item.width}x${item.height}`);
  // human works on a float32 [1, h, w, 3] tensor of 0..255 values.
  const image = tf.tensor4d(Float32Array.from(bytes), [1, item.height, item.width, 3], 'float32');
  // facemeshutil.ts cutAndResize: box as fractions, cropAndResize, / 255.
  const [x0, y0, x1, y1] = item.box;
  const h = image.shape[1];
  const w = image.shape[2];
  const cutBox = [y0 / h, x0 / w, y1 / h, x1 / w];
  const crop = tf.image.cropAndResize(image, [cutBox], [0], [cropSize, cropSize]);
  const face = tf.div(crop, tf.scalar(255));
  if (item.cropOut) {
    const d = await face.data();
    fs.writeFileSync(item.cropOut, Buffer.from(d.buffer, d.byteOffset, d.byteLength));
  }
  const a = await predict(antispoof, face);
  const l = await predict(liveness, face);
  results.push({ name: item.name, real: a.data[0], live: l.data[0], liveness: l.data, antispoofInput: a.shape });
  tf.dispose([image, crop, face]);
}
process.stdout.write(JSON.stringify({
  versions: { human: humanVersion, tfjs: tf.version.tfjs, node: process.version },
  backend: tf.getBackend(),
  simd: tf.env().getBool('WASM_HAS_SIMD_SUPPORT'),
  results,
}));
