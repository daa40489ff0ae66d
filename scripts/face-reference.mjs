// Reference implementation for the tfjs/faceapi parity tests and
// benchmarks: runs @vladmandic/face-api on TensorFlow.js's WASM backend
// (single-threaded) over raw RGB images and prints the outputs as JSON.
//
//   node scripts/face-reference.mjs JOB.json
//
// JOB.json:
//   {"npmDir": ".cache/npm-face",          // where scripts/npm-face-install put the packages
//    "modelDir": "models",                 // face-api model files (verifyd models fetch)
//    "iterations": 0,                      // > 0: also time each item this many times
//    "items": [{"name": "...", "kind": "descriptor" | "detect" | "landmarks" | "faces" | "ssd" | "ssdfaces",
//               "raw": "file.rgb", "width": W, "height": H,  // H*W*3 bytes, RGB
//               "inputSize": 416, "scoreThreshold": 0.5,     // detect and faces only
//               "minConfidence": 0.5, "maxResults": 100}]}   // ssd and ssdfaces only
//
// Kinds: "descriptor" is faceRecognitionNet.computeFaceDescriptor of the
// image; "detect" tinyFaceDetector.forward (raw grid) and locateFaces;
// "landmarks" faceLandmark68Net.detectLandmarks of the image (a face
// crop); "faces" the whole pipeline detectAllFaces(img, new
// TinyFaceDetectorOptions(...)).withFaceLandmarks().withFaceDescriptors();
// "ssd" ssdMobilenetv1.forward (decoded boxes and scores of all 5118
// anchors) and locateFaces with SsdMobilenetv1Options; "ssdfaces" the
// whole pipeline with SsdMobilenetv1Options.
//
// Output: {"versions": {...}, "backend": "wasm", "results": [{"name",
// "descriptor": [...128] | "raw": [...] (detector output grid),
// "ssdBoxes": [...5118*4] (top, left, bottom, right), "ssdScores": [...5118],
// "detections": [{"x","y","width","height","score"}],
// "landmarks": [[x, y] ...68],
// "faces": [{"x","y","width","height","score" (detection), "landmarks",
//            "aligned": {"x","y","width","height"} (the crop the
//            descriptor was computed on), "descriptor"}],
// "ms": [...] (wall time per run), "cpuMs": [...] (process CPU time per
// run)}]}
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const require = createRequire(path.resolve(job.npmDir, 'package.json'));
const tf = require('@tensorflow/tfjs');
const wasm = require('@tensorflow/tfjs-backend-wasm');
const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js');

wasm.setThreadsCount(1);
await tf.setBackend('wasm');
await tf.ready();
if (tf.getBackend() !== 'wasm') throw new Error(`backend is ${tf.getBackend()}, want wasm`);
await faceapi.nets.faceRecognitionNet.loadFromDisk(job.modelDir);
await faceapi.nets.tinyFaceDetector.loadFromDisk(job.modelDir);
await faceapi.nets.faceLandmark68Net.loadFromDisk(job.modelDir);
await faceapi.nets.ssdMobilenetv1.loadFromDisk(job.modelDir);

const points = (landmarks) => landmarks.positions.map((p) => [p.x, p.y]);

const results = [];
for (const item of job.items) {
  const bytes = fs.readFileSync(item.raw);
  if (bytes.length !== item.width * item.height * 3) throw new Error(`${item.raw}: ${bytes.length} bytes for ${item.width}x${item.height}`);
  const img = tf.tensor3d(new Int32Array(bytes), [item.height, item.width, 3], 'int32');
  const res = { name: item.name };
  let run;
  if (item.kind === 'descriptor') {
    run = async () => faceapi.nets.faceRecognitionNet.computeFaceDescriptor(img);
    res.descriptor = Array.from(await run());
  } else if (item.kind === 'detect') {
    const options = new faceapi.TinyFaceDetectorOptions({ inputSize: item.inputSize, scoreThreshold: item.scoreThreshold });
    const raw = await faceapi.nets.tinyFaceDetector.forward(img, item.inputSize);
    res.rawShape = raw.shape.slice(1);
    res.raw = Array.from(await raw.data());
    raw.dispose();
    run = async () => faceapi.nets.tinyFaceDetector.locateFaces(img, options);
    res.detections = (await run()).map((d) => ({ x: d.box.x, y: d.box.y, width: d.box.width, height: d.box.height, score: d.score }));
  } else if (item.kind === 'landmarks') {
    run = async () => faceapi.nets.faceLandmark68Net.detectLandmarks(img);
    res.landmarks = points(await run());
  } else if (item.kind === 'ssd') {
    const options = new faceapi.SsdMobilenetv1Options({ minConfidence: item.minConfidence, maxResults: item.maxResults });
    const { boxes, scores } = await faceapi.nets.ssdMobilenetv1.forward(img);
    res.ssdBoxes = Array.from(await boxes[0].data());
    res.ssdScores = Array.from(await scores[0].data());
    boxes.forEach((t) => t.dispose());
    scores.forEach((t) => t.dispose());
    run = async () => faceapi.nets.ssdMobilenetv1.locateFaces(img, options);
    res.detections = (await run()).map((d) => ({ x: d.box.x, y: d.box.y, width: d.box.width, height: d.box.height, score: d.score }));
  } else if (item.kind === 'faces' || item.kind === 'ssdfaces') {
    const options = item.kind === 'ssdfaces'
      ? new faceapi.SsdMobilenetv1Options({ minConfidence: item.minConfidence, maxResults: item.maxResults })
      : new faceapi.TinyFaceDetectorOptions({ inputSize: item.inputSize, scoreThreshold: item.scoreThreshold });
    run = async () => faceapi.detectAllFaces(img, options).withFaceLandmarks().withFaceDescriptors();
    res.faces = (await run()).map((r) => {
      // The box withFaceDescriptors cuts out (ComputeFaceDescriptorsTasks
      // and extractFaceTensors).
      const aligned = r.landmarks.align(null, { useDlibAlignment: true }).clipAtImageBorders(item.width, item.height);
      return {
        x: r.detection.box.x,
        y: r.detection.box.y,
        width: r.detection.box.width,
        height: r.detection.box.height,
        score: r.detection.score,
        landmarks: points(r.landmarks),
        aligned: { x: aligned.x, y: aligned.y, width: aligned.width, height: aligned.height },
        descriptor: Array.from(r.descriptor),
      };
    });
  } else {
    throw new Error(`unknown kind ${item.kind}`);
  }
  if (job.iterations > 0) {
    for (let i = 0; i < 2; i++) await run(); // warm-up
    res.ms = [];
    res.cpuMs = [];
    for (let i = 0; i < job.iterations; i++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await run();
      res.ms.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      res.cpuMs.push((c.user + c.system) / 1000);
    }
  }
  img.dispose();
  results.push(res);
}
process.stdout.write(JSON.stringify({
  versions: { faceapi: faceapi.version, tfjs: tf.version.tfjs, node: process.version },
  backend: tf.getBackend(),
  simd: tf.env().getBool('WASM_HAS_SIMD_SUPPORT'),
  results,
}));
