// Passkeys on the age pages (web/agepages/passkey.go) and the dashboard
// (web/dashpages/passkey.go): each button with data-passkey="signup|login|add"
// runs one WebAuthn ceremony. Begin answers
// the options (base64url fields, as go-webauthn writes them), the browser
// creates or uses the passkey, finish checks it; then the page goes to
// data-next. Without WebAuthn the buttons stay hidden and the password
// forms remain.
(function () {
  'use strict';

  var buttons = document.querySelectorAll('[data-passkey]');
  if (!buttons.length || !window.PublicKeyCredential || !navigator.credentials) { return; }

  function bytes(s) {
    s = s.replace(/-/g, '+').replace(/_/g, '/');
    while (s.length % 4) { s += '='; }
    var bin = atob(s), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { out[i] = bin.charCodeAt(i); }
    return out.buffer;
  }

  function b64u(buf) {
    var b = new Uint8Array(buf), s = '';
    for (var i = 0; i < b.length; i++) { s += String.fromCharCode(b[i]); }
    return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  function ids(list) {
    return (list || []).map(function (c) { c.id = bytes(c.id); return c; });
  }

  function creation(o) {
    var pk = o.publicKey;
    pk.challenge = bytes(pk.challenge);
    pk.user.id = bytes(pk.user.id);
    pk.excludeCredentials = ids(pk.excludeCredentials);
    return { publicKey: pk };
  }

  function request(o) {
    var pk = o.publicKey;
    pk.challenge = bytes(pk.challenge);
    pk.allowCredentials = ids(pk.allowCredentials);
    return { publicKey: pk, mediation: o.mediation || undefined };
  }

  function answer(cred) {
    var r = cred.response, out = {
      id: cred.id, rawId: b64u(cred.rawId), type: cred.type,
      clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
      response: { clientDataJSON: b64u(r.clientDataJSON) }
    };
    if (cred.authenticatorAttachment) { out.authenticatorAttachment = cred.authenticatorAttachment; }
    if (r.attestationObject) {
      out.response.attestationObject = b64u(r.attestationObject);
      if (r.getTransports) { out.response.transports = r.getTransports(); }
    } else {
      out.response.authenticatorData = b64u(r.authenticatorData);
      out.response.signature = b64u(r.signature);
      if (r.userHandle) { out.response.userHandle = b64u(r.userHandle); }
    }
    return out;
  }

  function post(url, token, body) {
    return fetch(url, {
      method: 'POST', credentials: 'same-origin', cache: 'no-store',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-CSRF-Token': token },
      body: JSON.stringify(body)
    }).then(function (res) {
      return res.json().then(function (j) {
        if (!res.ok) { throw new Error(j && j.message ? j.message : String(res.status)); }
        return j;
      });
    });
  }

  function show(button, text) {
    var el = document.getElementById(button.getAttribute('data-status'));
    if (!el) { return; }
    el.textContent = text;
    el.hidden = false;
    el.focus();
  }

  Array.prototype.forEach.call(buttons, function (button) {
    button.hidden = false;
    button.addEventListener('click', function () {
      var kind = button.getAttribute('data-passkey');
      var base = button.getAttribute('data-base') + '/' + kind;
      var token = button.getAttribute('data-csrf');
      var body = {};
      if (kind === 'signup') {
        var email = document.getElementById(button.getAttribute('data-email'));
        body.email = email ? email.value : '';
      }
      button.disabled = true;
      post(base + '/begin', token, body).then(function (opts) {
        return kind === 'login' ? navigator.credentials.get(request(opts)) : navigator.credentials.create(creation(opts));
      }).then(function (cred) {
        return post(base + '/finish', token, answer(cred));
      }).then(function () {
        window.location.assign(button.getAttribute('data-next'));
      }).catch(function (err) {
        button.disabled = false;
        // A dismissed dialog (NotAllowedError) is the person's choice.
        show(button, err && err.name === 'NotAllowedError' ? button.getAttribute('data-cancelled') : (err && err.message) || '');
      });
    });
  });
})();
