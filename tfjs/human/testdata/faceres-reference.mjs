// Reference implementation for the tfjs/human FaceRes parity test: runs
// the FaceRes graph model of @vladmandic/human 3.3.6 on TensorFlow.js's
// WASM backend (single-threaded) with human's input preparation, over raw
// RGB images and face boxes, and prints the descriptors as JSON.
//
//   node tfjs/human/testdata/faceres-reference.mjs JOB.json
//
// JOB.json:
//   {"npmDir": ".cache/npm-face",      // where scripts/npm-face-install put the packages
//    "modelDir": "dir",                // faceres.{json,bin}
//    "items": [{"name": "...", "raw": "file.rgb", "width": W, "height": H,  // H*W*3 bytes, RGB
//               "box": [x0, y0, x1, y1]}]}    // crop box in pixels (end exclusive)
//
// Output: {"versions": {...}, "backend": "wasm", "results": [{"name",
// "descriptor": the 1024 values of global_pooling/Mean, "gender": the
// gender_pred sigmoid}]}
//
// The preparation mirrors human's source: src/face/facemeshutil.ts
// cutAndResize (the 192x192 face.tensor, values 0..1) and
// src/face/faceres.ts enhance and predict (resizeBilinear to the model's
// input, times 255, execute, the output with 1024 columns). human's own
// pipeline is not called: it crops around its BlazeFace detection, which
// the Go side does not run.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const require = createRequire(path.resolve(job.npmDir, 'package.json'));
const tf = require('@tensorflow/tfjs');
const wasm = require('@tensorflow/tfjs-backend-wasm');
const humanVersion = JSON.parse(fs.readFileSync(path.join(job.npmDir, 'node_modules/@vladmandic/human/package.json'), 'utf8')).version;

wasm.setThreadsCount(1);
await tf.setBackend('wasm');
await tf.ready();
if (tf.getBackend() !== 'wasm') throw new Error(`backend is ${tf.getBackend()}, want wasm`);

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

const model = await loadModel(path.join(job.modelDir, 'faceres.json'));
const cropSize = 192; // human's FaceMesh input size
const constants255 = tf.scalar(255, 'float32'); // human's constants.tf255

const results = [];
for (const item of job.items) {
  const bytes = fs.readFileSync(item.raw);
  if (bytes.length !== item.width * item.height * 3) throw new Error(`${item.raw}: ${bytes.length} bytes for ${item.width}x${item.height}`);
  const image = tf.tensor4d(Float32Array.from(bytes), [1, item.height, item.width, 3], 'float32');
  const [x0, y0, x1, y1] = item.box;
  const h = image.shape[1];
  const w = image.shape[2];
  const crop = tf.image.cropAndResize(image, [[y0 / h, x0 / w, y1 / h, x1 / w]], [0], [cropSize, cropSize]);
  const face = tf.div(crop, constants255);
  // faceres.ts enhance (config.face.description.crop unset) and predict.
  const resized = tf.image.resizeBilinear(face, [model.inputs[0].shape[2], model.inputs[0].shape[1]], false);
  const enhanced = tf.mul(resized, constants255);
  const resT = model.execute(enhanced);
  const desc = resT.find((t) => t.shape[1] === 1024);
  const gender = resT.find((t) => t.shape[1] === 1);
  results.push({ name: item.name, descriptor: Array.from(await desc.data()), gender: (await gender.data())[0] });
  tf.dispose([image, crop, face, resized, enhanced, ...resT]);
}
process.stdout.write(JSON.stringify({
  versions: { human: humanVersion, tfjs: tf.version.tfjs, node: process.version },
  backend: tf.getBackend(),
  simd: tf.env().getBool('WASM_HAS_SIMD_SUPPORT'),
  results,
}));
