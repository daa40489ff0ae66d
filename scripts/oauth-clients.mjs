// Runs npm OAuth client libraries, unmodified and configured as
// docs/integrations.md shows, through verifyd's sandbox age flow: the
// authorize redirect, the hosted flow finished with its ?sandbox= shortcut
// (what a person does in a browser), the code exchange, /users/me, and the
// errors a client sees for a replayed code and a wrong secret. Run by
// httpapi's TestNodeClients on the packages scripts/npm-clients-install puts
// in .cache/npm-clients.
//
//   node scripts/oauth-clients.mjs JOB.json
//
// JOB: {"npmDir": "...", "base": "http://127.0.0.1:PORT/sandbox/age",
//       "clientId": "...", "clientSecret": "...", "redirectUri": "..."}
// Prints one JSON object: {"versions": {...}, "results": [{...}, ...]}, one
// result per client run; a step that throws ends that run with "failed".

import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const require = createRequire(path.join(job.npmDir, 'package.json'));
const client = await import(pathToFileURL(require.resolve('openid-client')).href);
const { AuthorizationCode } = require('simple-oauth2');
// openid-client 5 (CommonJS, still the most installed major), installed
// under an npm alias next to 6.
const v5 = require('openid-client-5');
const version = (name) => JSON.parse(fs.readFileSync(path.join(job.npmDir, 'node_modules', name, 'package.json'), 'utf8')).version;

// browse plays the person's browser: it opens the authorize URL, follows
// verifyd's redirect to the hosted flow, finishes the flow with the sandbox
// shortcut, and returns the URL the flow sends it back to (the callback,
// never fetched: nobody listens there).
async function browse(authorizeURL, outcome) {
  const start = await fetch(authorizeURL, { redirect: 'manual' });
  const flow = start.headers.get('location');
  if (start.status !== 302 || !flow) {
    throw new Error(`authorize answered ${start.status}: ${await start.text()}`);
  }
  const done = await fetch(`${flow}?sandbox=${outcome}`, { redirect: 'manual' });
  const back = done.headers.get('location');
  if (done.status !== 303 || !back) {
    throw new Error(`flow answered ${done.status}: ${await done.text()}`);
  }
  return new URL(back);
}

// describe is what a caller can read of a library's error.
function describe(err) {
  return {
    name: err?.constructor?.name ?? typeof err,
    message: String(err?.message ?? err),
    // openid-client: ResponseBodyError
    error: err?.error ?? err?.data?.payload?.error,
    status: err?.status ?? err?.data?.res?.statusCode ?? err?.output?.statusCode ?? err?.response?.statusCode,
    // simple-oauth2: the error body (Boom's data.payload)
    body: err?.data?.payload,
  };
}

async function run(name, steps) {
  const result = { client: name };
  try {
    await steps(result);
    result.ok = true;
  } catch (err) {
    result.failed = describe(err);
  }
  return result;
}

const results = [];

// openid-client 6: RFC 8414 discovery from the base URL (the issuer), PKCE
// S256 and state, client_secret_basic; /users/me read as a protected
// resource (it is not an OpenID Connect UserInfo: no "sub").
for (const form of ['issuer', 'metadata-url']) {
  results.push(await run(`openid-client discovery (${form})`, async (r) => {
    const insecure = { execute: [client.allowInsecureRequests] }; // the test server speaks http
    const discover = (secret) => form === 'issuer'
      ? client.discovery(new URL(job.base), job.clientId, secret, client.ClientSecretBasic(secret), { ...insecure, algorithm: 'oauth2' })
      : client.discovery(new URL(`${job.base}/.well-known/oauth-authorization-server`), job.clientId, secret, client.ClientSecretBasic(secret), insecure);
    const config = await discover(job.clientSecret);
    r.issuer = config.serverMetadata().issuer;
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: job.redirectUri, scope: 'adult', country: 'gb', state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    });
    const callback = await browse(url, 'adult');
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    r.token_type = tokens.token_type;
    r.expires_in = tokens.expires_in;
    const res = await client.fetchProtectedResource(config, tokens.access_token, new URL(`${job.base}/users/me`), 'GET');
    r.user = await res.json();
    // The same code again: refused with invalid_grant (and the token
    // issued for it revoked).
    try {
      await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
      r.replay = { error: 'none: the replay succeeded' };
    } catch (err) {
      r.replay = describe(err);
    }
    // A wrong secret: a 401 with a Basic challenge.
    const wrong = await discover('vds_test_wrong');
    const verifier2 = client.randomPKCECodeVerifier();
    const state2 = client.randomState();
    const callback2 = await browse(client.buildAuthorizationUrl(wrong, {
      redirect_uri: job.redirectUri, scope: 'adult', country: 'us', state: state2,
      code_challenge: await client.calculatePKCECodeChallenge(verifier2), code_challenge_method: 'S256',
    }), 'minor');
    try {
      await client.authorizationCodeGrant(wrong, callback2, { pkceCodeVerifier: verifier2, expectedState: state2 });
      r.wrong_secret = { error: 'none: the exchange succeeded' };
    } catch (err) {
      r.wrong_secret = describe(err);
      r.wrong_secret.challenge = err?.cause?.[0]?.scheme;
    }
    // The right client gets the minor's result from that code.
    const minor = await client.authorizationCodeGrant(config, callback2, { pkceCodeVerifier: verifier2, expectedState: state2 });
    const res2 = await client.fetchProtectedResource(config, minor.access_token, new URL(`${job.base}/users/me`), 'GET');
    r.minor = await res2.json();
  }));
}

// openid-client 5: Issuer.discover appends only OpenID Connect's
// /.well-known/openid-configuration to a URL without a well-known path, so
// it is given the RFC 8414 metadata URL itself; PKCE S256 and state,
// client_secret_basic; oauthCallback (plain OAuth 2.0: no ID token is
// expected); /users/me read with requestResource.
results.push(await run('openid-client 5 (Issuer.discover, oauthCallback)', async (r) => {
  const issuer = await v5.Issuer.discover(`${job.base}/.well-known/oauth-authorization-server`);
  r.issuer = issuer.issuer;
  const newClient = (secret) => new issuer.Client({
    client_id: job.clientId, client_secret: secret, redirect_uris: [job.redirectUri],
    response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic',
  });
  const c = newClient(job.clientSecret);
  const exchange = async (cl, country, outcome) => {
    const verifier = v5.generators.codeVerifier();
    const state = v5.generators.state();
    const callback = await browse(cl.authorizationUrl({
      scope: 'adult', state, country, code_challenge: v5.generators.codeChallenge(verifier), code_challenge_method: 'S256',
    }), outcome);
    const params = cl.callbackParams(callback.href);
    return { params, checks: { state, code_verifier: verifier } };
  };
  const first = await exchange(c, 'gb', 'adult');
  const tokens = await c.oauthCallback(job.redirectUri, first.params, first.checks);
  r.token_type = tokens.token_type;
  r.expires_in = tokens.expires_in;
  const me = await c.requestResource(`${job.base}/users/me`, tokens.access_token);
  r.user = JSON.parse(me.body.toString('utf8'));
  try {
    await c.oauthCallback(job.redirectUri, first.params, first.checks);
    r.replay = { error: 'none: the replay succeeded' };
  } catch (err) {
    r.replay = describe(err);
  }
  const wrong = newClient('vds_test_wrong');
  const second = await exchange(wrong, 'us', 'minor');
  try {
    await wrong.oauthCallback(job.redirectUri, second.params, second.checks);
    r.wrong_secret = { error: 'none: the exchange succeeded' };
  } catch (err) {
    r.wrong_secret = describe(err);
  }
  const minor = await c.oauthCallback(job.redirectUri, second.params, second.checks);
  const me2 = await c.requestResource(`${job.base}/users/me`, minor.access_token);
  r.minor = JSON.parse(me2.body.toString('utf8'));
}));

// simple-oauth2 5: explicit endpoints. Its paths resolve against the
// origin, not against a base URL with a path, so they carry the mount's
// path; SPEC's ?access_token= reads /users/me.
for (const method of ['header', 'body']) {
  results.push(await run(`simple-oauth2 (authorizationMethod ${method})`, async (r) => {
    const base = new URL(job.base);
    const config = (secret) => ({
      client: { id: job.clientId, secret },
      auth: { tokenHost: base.origin, tokenPath: `${base.pathname}/oauth/token`, authorizePath: `${base.pathname}/oauth/authorize` },
      options: { authorizationMethod: method },
    });
    const oauth = new AuthorizationCode(config(job.clientSecret));
    const state = `st-${method}`;
    const url = oauth.authorizeURL({ redirect_uri: job.redirectUri, scope: 'adult', state, country: 'fr' });
    const callback = await browse(url, 'adult');
    if (callback.searchParams.get('state') !== state) {
      throw new Error(`state ${callback.searchParams.get('state')} came back, sent ${state}`);
    }
    const code = callback.searchParams.get('code');
    const token = await oauth.getToken({ code, redirect_uri: job.redirectUri });
    r.token_type = token.token.token_type;
    r.expires_in = token.token.expires_in;
    r.expired = token.expired();
    const res = await fetch(`${job.base}/users/me?access_token=${encodeURIComponent(token.token.access_token)}`);
    r.user = await res.json();
    try {
      await oauth.getToken({ code, redirect_uri: job.redirectUri });
      r.replay = { error: 'none: the replay succeeded' };
    } catch (err) {
      r.replay = describe(err);
    }
    const callback2 = await browse(oauth.authorizeURL({ redirect_uri: job.redirectUri, scope: 'adult', state, country: 'de' }), 'minor');
    try {
      await new AuthorizationCode(config('vds_test_wrong')).getToken({ code: callback2.searchParams.get('code'), redirect_uri: job.redirectUri });
      r.wrong_secret = { error: 'none: the exchange succeeded' };
    } catch (err) {
      r.wrong_secret = describe(err);
    }
  }));
}

process.stdout.write(JSON.stringify({
  versions: {
    node: process.version, 'openid-client': version('openid-client'), 'openid-client-5': version('openid-client-5'),
    'simple-oauth2': version('simple-oauth2'),
  },
  results,
}));
