// Prints, as JSON, the person names of every locale of the @faker-js/faker
// package unpacked at the directory given as the first argument:
// {"de": {"first": [...], "last": [...]}, ...}. scripts/namegrams-generate
// turns them into mrzread's letter bigrams.
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const dir = process.argv[2];
const { allLocales } = await import(pathToFileURL(path.join(dir, 'dist', 'index.js')).href);
const flat = (x) => (!x ? [] : Array.isArray(x) ? x : Object.values(x).flat());
const out = {};
for (const [k, v] of Object.entries(allLocales)) {
  const p = v.person;
  if (p) out[k] = { first: flat(p.first_name), last: flat(p.last_name) };
}
process.stdout.write(JSON.stringify(out));
