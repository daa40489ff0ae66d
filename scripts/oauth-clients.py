"""Runs Python OAuth client libraries, unmodified and configured as
docs/integrations.md shows, through verifyd's sandbox age flow: the authorize
redirect, the hosted flow finished with its ?sandbox= shortcut (what a person
does in a browser), the code exchange, /users/me, and the errors a client sees
for a replayed code and a wrong secret. Run by httpapi's TestPythonClients
with Debian's python3-requests-oauthlib and python3-authlib (.ci/run installs
them).

    python3 scripts/oauth-clients.py JOB.json

JOB: {"base": "http://127.0.0.1:PORT/sandbox/age", "clientId": "...",
      "clientSecret": "...", "redirectUri": "..."}
Prints one JSON object: {"versions": {...}, "results": [{...}, ...]}, one
result per client run; a step that raises ends that run with "failed".
"""

import json
import os
import sys
import traceback

# The test server speaks http on 127.0.0.1; both libraries refuse that
# unless told (production integrations use https and never set these).
os.environ["OAUTHLIB_INSECURE_TRANSPORT"] = "1"
os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"

import authlib  # noqa: E402
import requests  # noqa: E402
import requests_oauthlib  # noqa: E402
from authlib.common.security import generate_token  # noqa: E402
from authlib.integrations.requests_client import OAuth2Session as AuthlibSession  # noqa: E402
from requests_oauthlib import OAuth2Session  # noqa: E402

job = json.load(open(sys.argv[1]))
base = job["base"]


def browse(authorize_url, outcome):
    """Plays the person's browser: opens the authorize URL, follows verifyd's
    redirect to the hosted flow, finishes it with the sandbox shortcut and
    returns the callback URL the flow sends it back to (never fetched)."""
    start = requests.get(authorize_url, allow_redirects=False)
    if start.status_code != 302:
        raise RuntimeError(f"authorize answered {start.status_code}: {start.text}")
    done = requests.get(start.headers["Location"] + "?sandbox=" + outcome, allow_redirects=False)
    if done.status_code != 303:
        raise RuntimeError(f"flow answered {done.status_code}: {done.text}")
    return done.headers["Location"]


def describe(err):
    """What a caller can read of a library's error."""
    return {
        "name": type(err).__name__,
        "message": str(err),
        "error": getattr(err, "error", None),
        "status": getattr(err, "status_code", None),
    }


def run(name, steps):
    result = {"client": name}
    try:
        steps(result)
        result["ok"] = True
    except Exception as err:  # reported, the test fails on it
        result["failed"] = describe(err)
        result["failed"]["traceback"] = traceback.format_exc()
    return result


def requests_oauthlib_flow(r):
    # HTTP Basic credentials (the library's default when client_secret is
    # given), a form body, then a Bearer call.
    session = OAuth2Session(job["clientId"], redirect_uri=job["redirectUri"], scope=["adult"])
    url, state = session.authorization_url(base + "/oauth/authorize", country="gb")
    callback = browse(url, "adult")
    token = session.fetch_token(base + "/oauth/token", authorization_response=callback, client_secret=job["clientSecret"])
    r["token_type"], r["expires_in"] = token["token_type"], token["expires_in"]
    r["user"] = session.get(base + "/users/me").json()
    try:
        OAuth2Session(job["clientId"], redirect_uri=job["redirectUri"], state=state).fetch_token(
            base + "/oauth/token", authorization_response=callback, client_secret=job["clientSecret"])
        r["replay"] = {"error": "none: the replay succeeded"}
    except Exception as err:
        r["replay"] = describe(err)
    session = OAuth2Session(job["clientId"], redirect_uri=job["redirectUri"], scope=["adult"])
    url, _ = session.authorization_url(base + "/oauth/authorize", country="us")
    try:
        session.fetch_token(base + "/oauth/token", authorization_response=browse(url, "minor"), client_secret="vds_test_wrong")
        r["wrong_secret"] = {"error": "none: the exchange succeeded"}
    except Exception as err:
        r["wrong_secret"] = describe(err)


def authlib_flow(r):
    # PKCE S256 and HTTP Basic, then a Bearer call.
    def session(secret):
        return AuthlibSession(job["clientId"], secret, scope="adult", redirect_uri=job["redirectUri"],
                              code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic")
    client = session(job["clientSecret"])
    verifier = generate_token(48)
    url, state = client.create_authorization_url(base + "/oauth/authorize", code_verifier=verifier, country="fr")
    callback = browse(url, "adult")
    token = client.fetch_token(base + "/oauth/token", authorization_response=callback, code_verifier=verifier, state=state)
    r["token_type"], r["expires_in"] = token["token_type"], token["expires_in"]
    r["user"] = client.get(base + "/users/me").json()
    try:
        session(job["clientSecret"]).fetch_token(base + "/oauth/token", authorization_response=callback,
                                                 code_verifier=verifier, state=state)
        r["replay"] = {"error": "none: the replay succeeded"}
    except Exception as err:
        r["replay"] = describe(err)
    wrong = session("vds_test_wrong")
    verifier = generate_token(48)
    url, state = wrong.create_authorization_url(base + "/oauth/authorize", code_verifier=verifier, country="de")
    try:
        wrong.fetch_token(base + "/oauth/token", authorization_response=browse(url, "minor"), code_verifier=verifier, state=state)
        r["wrong_secret"] = {"error": "none: the exchange succeeded"}
    except Exception as err:
        r["wrong_secret"] = describe(err)


results = [run("requests-oauthlib", requests_oauthlib_flow), run("Authlib", authlib_flow)]
print(json.dumps({
    "versions": {"python": sys.version.split()[0], "requests-oauthlib": requests_oauthlib.__version__,
                 "Authlib": authlib.__version__, "requests": requests.__version__},
    "results": results,
}))
