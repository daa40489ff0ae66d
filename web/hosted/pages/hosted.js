// Hosted identity-verification page: camera capture with a frame guide,
// upload fallback, submission without reloading, and status polling. The
// page works without this script (plain multipart form, meta refresh).
(function () {
  'use strict';

  var main = document.getElementById('main');
  var textEl = document.getElementById('hosted-text');
  if (!main || !textEl) { return; }
  var T = {};
  try { T = JSON.parse(textEl.textContent) || {}; } catch (e) { T = {}; }
  var lang = main.getAttribute('data-lang') || 'en';
  var live = document.getElementById('live');

  function t(key, arg) {
    var s = T[key] || key;
    return (arg === undefined ? s : s.replace(/%[sd]/, String(arg))).replace(/%%/g, '%');
  }

  // The link's expiry in the person's language and time zone; the page
  // says it in UTC for when this script does not run.
  var expires = document.querySelector('#expires time[datetime]');
  if (expires && window.Intl && T.expires_local) {
    try {
      var when = new Date(expires.getAttribute('datetime'));
      var shown = new Intl.DateTimeFormat(lang, {
        year: 'numeric', month: 'long', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short'
      }).format(when);
      expires.textContent = t('expires_local', shown);
    } catch (e) { /* the UTC text stays */ }
  }

  function announce(text) {
    if (!live) { return; }
    live.textContent = '';
    var p = document.createElement('p');
    p.textContent = text;
    live.appendChild(p);
  }

  // Polling while a submission is processed (or, on a page that asks for it
  // with data-poll, while it waits for a review): the page reloads itself
  // when the phase changes, so what is shown always comes from the server.
  var phase = main.getAttribute('data-phase');
  if (phase === 'processing' || main.hasAttribute('data-poll')) {
    var statusURL = main.getAttribute('data-status') + '?lang=' + encodeURIComponent(lang);
    var every = parseInt(main.getAttribute('data-poll'), 10) || 1500;
    var poll = function () {
      fetch(statusURL, { headers: { Accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' })
        .then(function (r) {
          // Gone (an expired link): the page shows why.
          if (r.status === 404) { window.location.reload(); return null; }
          return r.ok ? r.json() : null;
        })
        .then(function (s) {
          if (s && s.phase !== phase) { window.location.reload(); return; }
          window.setTimeout(poll, every);
        })
        .catch(function () { window.setTimeout(poll, 4000); });
    };
    window.setTimeout(poll, 1000);
  }

  // The hand-off to a phone: opened by itself on a computer (not a mobile
  // browser, no touch screen). While it is open the page follows the
  // verification: when the phone has sent photos (the phase or the
  // attempts left change) it reloads and shows where things stand.
  var handoff = document.getElementById('handoff');
  if (handoff) {
    var mobileUA = navigator.userAgentData ? navigator.userAgentData.mobile : /Mobi|Android|iPhone|iPad/i.test(navigator.userAgent);
    var desktop = !mobileUA && !(navigator.maxTouchPoints > 0) && !('ontouchstart' in window);
    if (desktop) { handoff.open = true; }
    var linkInput = document.getElementById('handoff-link');
    var copy = document.getElementById('handoff-copy');
    if (copy && navigator.clipboard && window.isSecureContext) {
      copy.hidden = false;
      copy.addEventListener('click', function () {
        navigator.clipboard.writeText(linkInput.value).then(function () { announce(t('handoff_copied')); });
      });
    }
    linkInput.addEventListener('focus', function () { linkInput.select(); });
    var followURL = main.getAttribute('data-status') + '?lang=' + encodeURIComponent(lang);
    var seen = null;
    var follow = function () {
      if (!handoff.open) { window.setTimeout(follow, 3000); return; }
      fetch(followURL, { headers: { Accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' })
        .then(function (r) {
          if (r.status === 404) { window.location.reload(); return null; }
          return r.ok ? r.json() : null;
        })
        .then(function (s) {
          if (s) {
            var now = s.phase + '/' + s.attempts_left;
            if (seen !== null && now !== seen) { window.location.reload(); return; }
            if (s.phase !== phase) { window.location.reload(); return; }
            seen = now;
          }
          window.setTimeout(follow, 3000);
        })
        .catch(function () { window.setTimeout(follow, 5000); });
    };
    window.setTimeout(follow, 1000);
  }

  var form = document.getElementById('capture');
  if (!form) { return; }
  var csrf = form.querySelector('input[name=csrf]').value;
  var summary = document.getElementById('error-summary');
  var submit = document.getElementById('submit');
  var photos = {};      // field → Blob taken with the camera or re-encoded
  // The liveness challenge performed with a camera selfie:
  // {id, frames: [{blob, ms}], manual: step or ''}; null when the selfie
  // was uploaded (the server then sends it to a person).
  var livenessCapture = null;
  var challengeURL = form.getAttribute('data-challenge');
  var canCamera = !!(navigator.mediaDevices && navigator.mediaDevices.getUserMedia) && window.isSecureContext;
  var maxBytes = 10 * 1024 * 1024;
  var accepted = ['image/jpeg', 'image/png', 'image/webp'];
  // Photos are sent with a long side of at most uploadSide pixels, as
  // JPEG (docs/hosted-flow.md, "Photo size"): the engine's checks are
  // calibrated on documents 800–1000 px wide, and 2048 px keeps a card
  // that fills half the frame above that, with MRZ characters over 20 px
  // tall, at a tenth of a 12 MP photo's bytes.
  var uploadSide = 2048;
  var uploadQuality = 0.9;

  function section(field) { return document.getElementById('s-' + field); }
  function fileInput(field) { return document.getElementById('f-' + field); }
  function label(field) { return section(field).getAttribute('data-label'); }

  // The back is needed for every document type but the passport.
  function needsBack() {
    var chosen = form.querySelector('input[name=document_type]:checked');
    return !chosen || chosen.value !== 'Passport';
  }
  function updateBack() {
    var back = section('back');
    if (back) { back.hidden = !needsBack(); }
  }
  Array.prototype.forEach.call(form.querySelectorAll('input[name=document_type]'), function (r) {
    r.addEventListener('change', updateBack);
  });
  updateBack();

  function fieldError(field, text) {
    var el = document.getElementById('e-' + field);
    var input = fileInput(field);
    if (!text) { clearProblem(field); }
    if (!el) { return; }
    el.textContent = text || '';
    el.hidden = !text;
    if (input) {
      if (text) {
        input.setAttribute('aria-invalid', 'true');
        input.setAttribute('aria-describedby', 'd-' + field + ' e-' + field);
      } else {
        input.removeAttribute('aria-invalid');
        input.setAttribute('aria-describedby', 'd-' + field);
      }
    }
  }

  // clearProblem takes a fixed field out of the error summary, and hides
  // the summary once nothing is left in it.
  function clearProblem(field) {
    if (!summary) { return; }
    Array.prototype.forEach.call(summary.querySelectorAll('li'), function (li) {
      var a = li.querySelector('a');
      if (a && a.getAttribute('href') === '#f-' + field) { li.parentNode.removeChild(li); }
    });
    if (!summary.querySelector('li')) {
      summary.hidden = true;
      var again = document.getElementById('choose-again');
      if (again) { again.parentNode.removeChild(again); }
    }
  }
  ['document_type', 'document_country'].forEach(function (field) {
    Array.prototype.forEach.call(form.querySelectorAll('[name=' + field + ']'), function (el) {
      el.addEventListener('change', function () {
        if (!el.value) { return; }
        var err = document.getElementById('e-' + field);
        if (err) { err.hidden = true; }
        var sel = document.getElementById('f-' + field);
        if (sel) { sel.removeAttribute('aria-invalid'); }
        clearProblem(field);
      });
    });
  });

  function showSummary(items) {
    var list = summary.querySelector('ul');
    list.textContent = '';
    items.forEach(function (it) {
      var li = document.createElement('li');
      var a = document.createElement('a');
      a.href = '#f-' + it.field;
      a.textContent = it.message;
      li.appendChild(a);
      list.appendChild(li);
    });
    summary.hidden = items.length === 0;
    if (items.length) { summary.focus(); }
  }

  function showBanner(text) {
    var b = document.getElementById('banner');
    if (!b) {
      b = document.createElement('p');
      b.id = 'banner';
      b.className = 'notice notice-error';
      b.setAttribute('role', 'alert');
      form.parentNode.insertBefore(b, form);
    }
    b.textContent = text;
  }

  // setPreview shows a photo; chosen says it is a file rather than the
  // camera's picture, which decides what the buttons offer next.
  function setPreview(field, blob, chosen) {
    var sec = section(field);
    var slot = sec.querySelector('.camera-slot');
    var img = slot.querySelector('img.preview');
    if (!img) {
      img = document.createElement('img');
      img.className = 'preview';
      slot.insertBefore(img, slot.firstChild);
    }
    if (img.src) { URL.revokeObjectURL(img.src); }
    img.src = URL.createObjectURL(blob);
    img.alt = t('preview_alt', label(field));
    sec.classList.add('has-photo');
    // A new photo replaces the one kept from the last attempt.
    var keptNote = document.getElementById('k-' + field);
    if (keptNote) { keptNote.hidden = true; }
    var btn = slot.querySelector('button.take');
    if (btn) { btn.textContent = t(chosen ? 'use_camera' : 'retake'); }
    var fileLabel = sec.querySelector('label[for=f-' + field + ']');
    if (fileLabel) {
      if (!fileLabel.hasAttribute('data-label')) { fileLabel.setAttribute('data-label', fileLabel.textContent); }
      fileLabel.textContent = chosen ? t('choose_another') : fileLabel.getAttribute('data-label');
    }
    fieldError(field, '');
  }

  // Scale a chosen file down to uploadSide pixels as a JPEG when it is
  // larger, in another format, or a heavy PNG/WebP; a file already small
  // enough is sent as it is. The browser applies the photo's EXIF
  // orientation when decoding. Resolves to null when the file is kept
  // (or cannot be decoded: the server's message then explains).
  function normalise(file) {
    if (!window.createImageBitmap) { return Promise.resolve(null); }
    return createImageBitmap(file).then(function (bmp) {
      var long = Math.max(bmp.width, bmp.height);
      var fits = long <= uploadSide && accepted.indexOf(file.type) >= 0 && file.size <= maxBytes &&
        (file.type === 'image/jpeg' || file.size <= 1024 * 1024);
      if (fits) { return null; }
      var scale = Math.min(1, uploadSide / long);
      var c = document.createElement('canvas');
      c.width = Math.round(bmp.width * scale);
      c.height = Math.round(bmp.height * scale);
      c.getContext('2d').drawImage(bmp, 0, 0, c.width, c.height);
      return new Promise(function (resolve) { c.toBlob(resolve, 'image/jpeg', uploadQuality); });
    }).catch(function () { return null; });
  }

  // Each photo section: a camera button (when there is a camera API), a
  // preview, and the file input as the fallback.
  Array.prototype.forEach.call(form.querySelectorAll('section.photo'), function (sec) {
    var field = sec.getAttribute('data-field');
    var input = fileInput(field);
    input.required = false; // the script checks photos itself (camera or file)
    input.addEventListener('change', function () {
      var file = input.files && input.files[0];
      delete photos[field];
      if (field === 'selfie') { livenessCapture = null; }
      if (!file) { return; }
      normalise(file).then(function (blob) {
        if (blob) { photos[field] = blob; }
        setPreview(field, blob || file, true);
        announce(t('photo_chosen', label(field)));
      });
    });
    if (!canCamera) { return; }
    var btn = document.createElement('button');
    btn.type = 'button';
    btn.className = 'take primary';
    btn.textContent = t('use_camera');
    btn.addEventListener('click', function () { openCamera(sec, btn); });
    sec.querySelector('.camera-slot').appendChild(btn);
  });

  // The camera dialog.
  var dialog = document.getElementById('camera');
  var video = document.getElementById('camera-video');
  var shoot = document.getElementById('camera-shoot');
  var cancel = document.getElementById('camera-cancel');
  var stage = dialog.querySelector('.stage');
  var guide = dialog.querySelector('.guide');
  var stream = null;
  var current = null; // {field, button}

  shoot.textContent = t('camera_capture');
  cancel.textContent = t('camera_cancel');

  function stopStream() {
    if (stream) { stream.getTracks().forEach(function (tr) { tr.stop(); }); }
    stream = null;
    video.srcObject = null;
  }

  function closeCamera() {
    stopGuidance();
    stopChallenge();
    stopStream();
    if (dialog.open) { dialog.close(); }
    if (current && current.button) { current.button.focus(); }
  }

  function cameraFailed() {
    var field = current.field;
    closeCamera();
    fieldError(field, t('camera_unavailable'));
    announce(t('camera_unavailable'));
    fileInput(field).focus();
  }

  function openCamera(sec, button) {
    var field = sec.getAttribute('data-field');
    var facing = sec.getAttribute('data-facing');
    var face = sec.getAttribute('data-guide') === 'face';
    current = { field: field, button: button };
    document.getElementById('camera-title').textContent = label(field);
    document.getElementById('camera-help').textContent = t('camera_starting');
    guide.className = 'guide ' + (face ? 'guide-face' : 'guide-document');
    stage.classList.toggle('mirror', facing === 'user');
    shoot.disabled = true;
    if (typeof dialog.showModal === 'function') { dialog.showModal(); } else { dialog.setAttribute('open', ''); }
    cancel.focus();
    navigator.mediaDevices.getUserMedia({
      audio: false,
      video: { facingMode: { ideal: facing }, width: { ideal: 1920 }, height: { ideal: 1080 } }
    }).then(function (s) {
      if (!dialog.open) { s.getTracks().forEach(function (tr) { tr.stop(); }); return; }
      stream = s;
      video.srcObject = s;
      return video.play().then(function () {
        document.getElementById('camera-help').textContent = t(face ? 'camera_face' : 'camera_doc');
        shoot.disabled = false;
        shoot.focus();
        startGuidance(face);
      });
    }).catch(cameraFailed);
  }

  // grab draws the current video frame, scaled to at most maxSide pixels,
  // and resolves to a JPEG.
  function grab(maxSide, quality) {
    var scale = Math.min(1, maxSide / Math.max(video.videoWidth, video.videoHeight));
    var c = document.createElement('canvas');
    c.width = Math.round(video.videoWidth * scale);
    c.height = Math.round(video.videoHeight * scale);
    c.getContext('2d').drawImage(video, 0, 0, c.width, c.height);
    return new Promise(function (resolve) { c.toBlob(resolve, 'image/jpeg', quality); });
  }

  // The active liveness challenge (docs/liveness-challenge.md). After a
  // camera selfie the page asks the server for a random sequence of
  // movements, shows each prompt large with an icon (announced through the
  // prompt's live region), and records frames of at most max_side pixels
  // at frames_per_second, each stamped with its milliseconds since the
  // lead-in began. The person may stop and ask for a manual check instead.
  var lv = {
    panel: document.getElementById('liveness'),
    prompt: document.getElementById('liveness-prompt'),
    progress: document.getElementById('liveness-progress'),
    cue: document.getElementById('liveness-cue'),
    bar: document.getElementById('liveness-bar'),
    manual: document.getElementById('liveness-manual')
  };
  var running = null; // the challenge under way: {timers, finish}

  // The icons: arrows for the turns (the preview is mirrored, so the
  // person's left is on the screen's left), up for look up, an eye for
  // blink, outward arrows for closer, a face outline for the lead-in.
  var cuePaths = {
    lead_in: ['M12 3a7 8 0 1 0 0.01 0', 'M9 10h.01', 'M15 10h.01', 'M9.5 15c1.5 1 3.5 1 5 0'],
    turn_left: ['M20 12H5', 'M11 6l-6 6 6 6'],
    turn_right: ['M4 12h15', 'M13 6l6 6-6 6'],
    look_up: ['M12 20V5', 'M6 11l6-6 6 6'],
    blink: ['M2 12s4-6 10-6 10 6 10 6-4 6-10 6-10-6-10-6z', 'M12 9a3 3 0 1 0 0.01 0'],
    closer: ['M4 9V4h5', 'M20 9V4h-5', 'M4 15v5h5', 'M20 15v5h-5', 'M9 12h6', 'M12 9v6']
  };
  function showCue(step) {
    var ns = 'http://www.w3.org/2000/svg';
    var svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('viewBox', '0 0 24 24');
    svg.setAttribute('focusable', 'false');
    (cuePaths[step] || []).forEach(function (d) {
      var p = document.createElementNS(ns, 'path');
      p.setAttribute('d', d);
      svg.appendChild(p);
    });
    lv.cue.textContent = '';
    lv.cue.appendChild(svg);
  }

  function stopChallenge() {
    if (!running) { return; }
    running.timers.forEach(function (id) { clearTimeout(id); clearInterval(id); });
    running = null;
    shoot.hidden = false;
    if (lv.panel) {
      lv.panel.hidden = true;
      lv.panel.removeAttribute('data-state');
      lv.prompt.setAttribute('data-step', '');
      lv.prompt.textContent = '';
    }
  }

  // challenge resolves to {id, frames, manual}, or to null when none could
  // be drawn (the submission then goes to a person), or rejects when the
  // camera was closed meanwhile.
  function challenge() {
    if (!challengeURL || !lv.panel) { return Promise.resolve(null); }
    return fetch(challengeURL, {
      method: 'POST', credentials: 'same-origin',
      headers: { Accept: 'application/json', 'X-CSRF-Token': csrf }
    }).then(function (r) { return r.status === 201 ? r.json() : null; })
      .catch(function () { return null; })
      .then(function (c) {
        if (!c || !stream) { return c && !stream ? Promise.reject(new Error('closed')) : null; }
        return perform(c);
      });
  }

  function perform(c) {
    return new Promise(function (resolve) {
      var frames = [];
      var total = c.lead_in_ms + c.steps.length * c.step_ms;
      var current = 'lead_in';
      var t0 = performance.now();
      var run = { timers: [] };
      running = run;
      function finish(manual) {
        if (running !== run) { return; }
        stopChallenge();
        // Wait for the JPEGs still being encoded.
        Promise.all(frames.map(function (f) { return f.blob; })).then(function (blobs) {
          var out = [];
          blobs.forEach(function (b, i) { if (b) { out.push({ blob: b, ms: frames[i].ms }); } });
          resolve({ id: c.id, frames: out, manual: manual || '' });
        });
      }
      run.finish = finish;
      function show(step, text, n) {
        current = step;
        lv.prompt.setAttribute('data-step', step);
        lv.prompt.textContent = text;
        showCue(step);
        lv.progress.textContent = n > 0 ? t('live_progress', n).replace(/%d/, String(c.steps.length)) : t('live_title');
      }
      document.getElementById('camera-help').textContent = t('live_intro');
      lv.manual.textContent = t('live_manual');
      lv.manual.onclick = function () {
        finish(current === 'lead_in' ? c.steps[0] : current);
      };
      lv.panel.hidden = false;
      lv.panel.setAttribute('data-state', 'recording');
      shoot.hidden = true; // the photo is taken; only Cancel and the manual check remain
      show('lead_in', c.lead_in_prompt, 0);
      lv.manual.focus();
      c.steps.forEach(function (step, i) {
        run.timers.push(setTimeout(function () {
          show(step, c.prompts[step] || step, i + 1);
        }, c.lead_in_ms + i * c.step_ms));
      });
      var every = Math.round(1000 / c.frames_per_second);
      var tick = function () {
        var ms = Math.round(performance.now() - t0);
        lv.bar.style.width = Math.min(100, 100 * ms / total) + '%';
        if (ms >= total || frames.length >= c.max_frames) { finish(''); return; }
        if (!stream || !video.videoWidth) { return; }
        frames.push({ ms: ms, blob: grab(c.max_side, 0.8) });
      };
      tick();
      run.timers.push(setInterval(tick, every));
    });
  }

  // Live guidance (no third-party code): a few times a second the frame is
  // looked at in small. For a document: are its four edges inside the
  // frame guide, is it sharp, free of glare and lit; when it is, for
  // guideSteady looks in a row, the guide turns green and the photo is
  // taken by itself. For the selfie: is there a face-like, lit subject in
  // the oval (not backlit); the guide turns green, Capture stays manual
  // (the movement check follows). The guide's data-state says what is
  // wrong; the help text says it once per change. Capture always works.
  var guideEvery = 200, guideSteady = 3, analysisSide = 320;
  var guidance = null;
  var helpEl = document.getElementById('camera-help');

  function stopGuidance() {
    if (guidance) { clearInterval(guidance.timer); }
    guidance = null;
    guide.removeAttribute('data-state');
    guide.classList.remove('ok');
  }

  function startGuidance(face) {
    stopGuidance();
    var canvas = document.createElement('canvas');
    var g = { timer: 0, good: 0, state: '', face: face, ctx: canvas.getContext('2d', { willReadFrequently: true }), canvas: canvas };
    guidance = g;
    g.timer = setInterval(function () {
      if (guidance !== g || !video.videoWidth || shoot.disabled || running) { return; }
      var state = face ? lookFace(g) : lookDocument(g);
      g.good = state === 'ok' ? g.good + 1 : 0;
      guide.setAttribute('data-state', state);
      guide.classList.toggle('ok', state === 'ok');
      if (state !== g.state) {
        g.state = state;
        var key = face ? { ok: 'guide_face_ok', none: 'guide_face_none', light: 'guide_face_light' }[state]
          : { ok: 'camera_hold', outside: 'guide_outside', blur: 'guide_blur', glare: 'guide_glare', dark: 'guide_dark' }[state];
        helpEl.textContent = t(key);
      }
      if (!face && g.good >= guideSteady) {
        stopGuidance();
        current.auto = true;
        shoot.click();
      }
    }, guideEvery);
  }

  // luma draws the video frame at analysisSide pixels wide and returns its
  // luminance (0–255) with the size.
  function luma(g) {
    var w = analysisSide, h = Math.round(analysisSide * video.videoHeight / video.videoWidth);
    g.canvas.width = w;
    g.canvas.height = h;
    g.ctx.drawImage(video, 0, 0, w, h);
    var px = g.ctx.getImageData(0, 0, w, h).data;
    var y = new Float32Array(w * h);
    for (var i = 0, j = 0; j < y.length; i += 4, j++) { y[j] = 0.299 * px[i] + 0.587 * px[i + 1] + 0.114 * px[i + 2]; }
    return { y: y, w: w, h: h };
  }

  // The guide's rectangle in frame pixels (hosted.css: 6% from each side,
  // ID-1 proportions, centred).
  function guideRect(w, h) {
    var gw = w * 0.88, gh = gw * 54 / 85.6;
    return { x0: w * 0.06, x1: w * 0.94, y0: (h - gh) / 2, y1: (h + gh) / 2 };
  }

  // Document detection, by hand: the page runs no third-party code
  // (docs/hosted-flow.md, "Live guidance").
  // Each side of the document is found by itself: on every scan line
  // across that side of the guide (rows for the left and right sides,
  // columns for the top and bottom) the first steps of at least minStep
  // levels across 4 pixels met coming from outside are candidates, and
  // the side is the straight line through most of them (a vote over
  // positions and angles up to maxTurn degrees, then a least-squares
  // refit on the candidates within fitTol pixels of it). Judging every
  // scan line by itself keeps a turned edge as sharp as a square one;
  // averaging a band of lines spread it over several pixels. Sizes are in
  // analysis pixels.
  var minStep = 24, maxTurn = 14, fitTol = 1.5, clipped = 250, solidRadius = 6;

  // solid says whether (x, y) lies in a clipped area at least
  // 2·solidRadius + 1 pixels across with no print showing through. A
  // reflection washes the print out; a light card brightly exposed (or
  // clipped by the camera's video range: Chromium's fake camera shows
  // Y4M luminance over about 235 as white) keeps its print, and a phone's
  // sharpening clips only thin halos around it. Both once counted as
  // glare (over 2% of the card at 250 or more).
  function solid(f, x, y) {
    if (x < solidRadius || y < solidRadius || x >= f.w - solidRadius || y >= f.h - solidRadius) { return false; }
    for (var dy = -solidRadius; dy <= solidRadius; dy += 2) {
      for (var dx = -solidRadius; dx <= solidRadius; dx += 2) {
        if (f.y[(y + dy) * f.w + x + dx] < clipped) { return false; }
      }
    }
    return true;
  }

  // sample is the luminance at (x, y), interpolated, clamped to the frame.
  function sample(f, x, y) {
    x = Math.max(0, Math.min(f.w - 1.001, x));
    y = Math.max(0, Math.min(f.h - 1.001, y));
    var x0 = Math.floor(x), y0 = Math.floor(y), ax = x - x0, ay = y - y0, i = y0 * f.w + x0;
    return (f.y[i] * (1 - ax) + f.y[i + 1] * ax) * (1 - ay) + (f.y[i + f.w] * (1 - ax) + f.y[i + f.w + 1] * ax) * ay;
  }

  // findSide looks for one side of the document: vertical for the left
  // and right sides (positions are x, scan lines rows t0..t1), otherwise
  // the transpose; positions run from..to, from outside the guide inward.
  // It returns the fitted line (position o at the middle line tc, slope
  // s), whether enough lines agree (found), and, measured across the
  // fitted line on the lines that agree: sharp, the steepest one-pixel
  // step over the step across 8 pixels; step, the median step across 8
  // pixels; outside, the mean luminance 4–6 pixels beyond the edge.
  function findSide(f, vertical, from, to, t0, t1) {
    var n = vertical ? f.w : f.h, m = vertical ? f.h : f.w, dir = from < to ? 1 : -1;
    from = Math.min(n - 4, Math.max(3, Math.round(from)));
    to = Math.min(n - 4, Math.max(3, Math.round(to)));
    t0 = Math.max(0, Math.round(t0));
    t1 = Math.min(m - 1, Math.round(t1));
    var tc = (t0 + t1) / 2, lines = t1 - t0 + 1;
    var at = vertical ? function (p, t) { return f.y[t * f.w + p]; } : function (p, t) { return f.y[p * f.w + t]; };
    // Up to two candidates a line: the first may be a thing lying on the
    // table against the document, the second is then its edge.
    var cands = [];
    for (var t = t0; t <= t1; t++) {
      var found = 0;
      for (var p = from; found < 2 && (dir > 0 ? p <= to : p >= to); p += dir) {
        // Over 4 pixels, so that a soft edge is found too (and judged blurred).
        if (Math.abs(at(p + 2 * dir, t) - at(p - 2 * dir, t)) < minStep) { continue; }
        while (p + 2 * dir >= 1 && p + 2 * dir <= n - 2 &&
          Math.abs(at(p + 2 * dir, t) - at(p, t)) > Math.abs(at(p + dir, t) - at(p - dir, t))) { p += dir; }
        var a = Math.abs(at(p, t) - at(p - 2 * dir, t)), b = Math.abs(at(p + dir, t) - at(p - dir, t)),
          c = Math.abs(at(p + 2 * dir, t) - at(p, t)), den = a - 2 * b + c;
        cands.push({ t: t, p: p + (den < 0 ? dir * 0.5 * (a - c) / den : 0) });
        found++;
        p += 2 * dir;
      }
    }
    // The vote: for each angle, a histogram of where the candidates put
    // the line at tc; the best bin (with its neighbours) wins, the
    // outermost one on a tie. Either polarity counts: a card's side may
    // be lighter than the table in one part and darker in another.
    var best = { votes: 0, o: 0, s: 0 };
    for (var deg = -maxTurn; deg <= maxTurn; deg++) {
      var s = Math.tan(deg * Math.PI / 180), hist = new Int32Array(n + 2);
      cands.forEach(function (c) {
        var o = Math.round(c.p - (c.t - tc) * s);
        if (o >= 0 && o < n) { hist[o + 1]++; }
      });
      for (var o = 0; o < n; o++) {
        var v = hist[o] + hist[o + 1] + hist[o + 2];
        if (v > best.votes || v === best.votes && v > 0 && (o - best.o) * dir < 0) { best = { votes: v, o: o, s: s }; }
      }
    }
    var fit = { o: best.o, s: best.s }, inl = [];
    for (var round = 0; round < 2; round++) {
      // One candidate a line, the nearest; then least squares.
      var near = {};
      cands.forEach(function (c) {
        var r = Math.abs(c.p - fit.o - (c.t - tc) * fit.s);
        if (r <= fitTol * (round ? 1 : 2) && (!near[c.t] || r < near[c.t].r)) { near[c.t] = { c: c, r: r }; }
      });
      inl = Object.keys(near).map(function (k) { return near[k].c; });
      if (inl.length < 3) { return { found: false }; }
      var st = 0, sp = 0, stt = 0, stp = 0;
      inl.forEach(function (c) { var u = c.t - tc; st += u; sp += c.p; stt += u * u; stp += u * c.p; });
      var k = inl.length, det = k * stt - st * st;
      fit.s = det > 0 ? (k * stp - st * sp) / det : 0;
      fit.o = (sp - fit.s * st) / k;
    }
    if (Math.abs(fit.s) > Math.tan(maxTurn * Math.PI / 180)) { return { found: false }; }
    // Across the fitted edge: the normal, pointing inward.
    var norm = Math.sqrt(1 + fit.s * fit.s), np = dir / norm, nt = -dir * fit.s / norm;
    var steep = 0, across = 0, out = 0, steps = [];
    inl.forEach(function (c) {
      var prof = [];
      for (var q = -6; q <= 6; q++) {
        var pp = c.p + q * np, tt = c.t + q * nt;
        prof.push(vertical ? sample(f, pp, tt) : sample(f, tt, pp));
      }
      var most = 0;
      for (var j = 4; j <= 7; j++) { most = Math.max(most, Math.abs(prof[j + 1] - prof[j])); }
      steep += most;
      across += Math.abs(prof[10] - prof[2]);
      steps.push(Math.abs(prof[10] - prof[2]));
      out += (prof[0] + prof[1] + prof[2]) / 3;
    });
    steps.sort(function (a, b) { return a - b; });
    return {
      found: inl.length >= lines / 2, o: fit.o, s: fit.s, tc: tc,
      sharp: across > 0 ? steep / across : 0, step: steps[steps.length >> 1], outside: out / inl.length
    };
  }

  // quantile is the q-quantile of a histogram of n values.
  function quantile(hist, n, q) {
    for (var c = 0, k = 0; k < 256; k++) {
      c += hist[k];
      if (c >= q * n) { return k; }
    }
    return 255;
  }

  // corner is where a vertical side (x = o + s·(y − tc)) meets a
  // horizontal one (y = o + s·(x − tc)).
  function corner(v, h) {
    var x = (v.o + v.s * (h.o - h.s * h.tc - v.tc)) / (1 - v.s * h.s);
    return { x: x, y: h.o + h.s * (x - h.tc) };
  }

  // documentState judges a frame: 'outside', 'dark', 'glare', 'blur' or
  // 'ok'.
  function documentState(f) {
    var r = guideRect(f.w, f.h);
    var gw = r.x1 - r.x0, gh = r.y1 - r.y0, mx = gw * 0.05, my = gh * 0.05;
    // Each side is looked for from a little outside the guide's side to a
    // quarter into it, over the middle half of the side.
    var left = findSide(f, true, r.x0 - mx, r.x0 + gw * 0.25, r.y0 + gh * 0.25, r.y1 - gh * 0.25);
    var right = findSide(f, true, r.x1 + mx, r.x1 - gw * 0.25, r.y0 + gh * 0.25, r.y1 - gh * 0.25);
    var top = findSide(f, false, r.y0 - my, r.y0 + gh * 0.25, r.x0 + gw * 0.25, r.x1 - gw * 0.25);
    var bottom = findSide(f, false, r.y1 + my, r.y1 - gh * 0.25, r.x0 + gw * 0.25, r.x1 - gw * 0.25);
    var sides = [left, right, top, bottom];
    if (sides.some(function (e) { return !e.found || e.step < minStep; })) { return 'outside'; }
    // The four corners, where the sides meet, lie inside the guide (with
    // the search's margin): a turned document's corner must not stick out.
    var corners = [corner(left, top), corner(right, top), corner(left, bottom), corner(right, bottom)];
    if (corners.some(function (c) {
      return !(c.x >= r.x0 - mx && c.x <= r.x1 + mx && c.y >= r.y0 - my && c.y <= r.y1 + my);
    })) { return 'outside'; }
    // The document's inside: its luminance histogram, and the pixels in
    // solid clipped areas (see solid).
    var hist = new Int32Array(256), n = 0, sum = 0, blob = 0;
    var ys = corners.map(function (c) { return c.y; }), xs = corners.map(function (c) { return c.x; });
    var ya = Math.max(2, Math.ceil(Math.min.apply(null, ys))), yb = Math.min(f.h - 3, Math.floor(Math.max.apply(null, ys)));
    var xa = Math.max(2, Math.ceil(Math.min.apply(null, xs))), xb = Math.min(f.w - 3, Math.floor(Math.max.apply(null, xs)));
    for (var y = ya; y <= yb; y += 2) {
      var xl = left.o + left.s * (y - left.tc) + 3, xr = right.o + right.s * (y - right.tc) - 3;
      for (var x = xa; x <= xb; x += 2) {
        if (x < xl || x > xr || y < top.o + top.s * (x - top.tc) + 3 || y > bottom.o + bottom.s * (x - bottom.tc) - 3) { continue; }
        var i = y * f.w + x, v = f.y[i];
        hist[Math.round(v)]++; n++; sum += v;
        if (v >= clipped && solid(f, x, y)) { blob++; }
      }
    }
    if (n < 100) { return 'outside'; }
    // The document's lit part (the upper quartile of its luminance: paper,
    // for a light card; a shadow over part of it does not pull it down)
    // and its median.
    var lit = quantile(hist, n, 0.75), median = quantile(hist, n, 0.5);
    // Beyond each side lies something unlike the document (the table, a
    // thing on it: each side by itself, so that one side may have
    // clutter). A document running out of the guide has more of itself
    // beyond the line taken for its side (the border of its photo, a
    // printed line).
    if (sides.some(function (e) { return Math.abs(e.outside - lit) < minStep; })) { return 'outside'; }
    if (sum / n < 50) { return 'dark'; }
    // Glare: over 1% of the document in solid clipped areas while most of
    // it is not clipped. When most of it is (a light card exposed too
    // brightly) nothing tells a reflection from the card: not glare.
    if (blob / n > 0.01 && median < clipped) { return 'glare'; }
    // Sharp: the edges' steepest pixel carries at least a third of the
    // step (a blur of σ ≈ 2 analysis pixels brings it under a quarter).
    var sharp = sides.reduce(function (a, e) { return a + e.sharp; }, 0) / 4;
    if (sharp < 0.33) { return 'blur'; }
    return 'ok';
  }

  function lookDocument(g) { return documentState(luma(g)); }

  function lookFace(g) {
    var f = luma(g);
    // The oval (hosted.css: 8% from top and bottom, 3:4).
    var oh = f.h * 0.84, ow = oh * 0.75, cx = f.w / 2, cy = f.h / 2;
    var inSum = 0, inSq = 0, inN = 0, outSum = 0, outN = 0;
    for (var y = 0; y < f.h; y += 2) {
      for (var x = 0; x < f.w; x += 2) {
        var v = f.y[y * f.w + x];
        var dx = (x - cx) / (ow / 2), dy = (y - cy) / (oh / 2), d = dx * dx + dy * dy;
        if (d < 0.6) { inSum += v; inSq += v * v; inN++; } else if (d > 1.2) { outSum += v; outN++; }
      }
    }
    var mean = inSum / inN, sd = Math.sqrt(Math.max(0, inSq / inN - mean * mean)), around = outN ? outSum / outN : mean;
    // Lit: the face's middle neither dark nor clipped, and not much
    // darker than what is behind it (backlight).
    if (mean < 60 || mean > 220 || around - mean > 50) { return 'light'; }
    // A face has features: a plain wall or a covered camera does not.
    if (sd < 12) { return 'none'; }
    return 'ok';
  }

  shoot.addEventListener('click', function () {
    if (!stream || !video.videoWidth) { return; }
    stopGuidance();
    var field = current.field;
    section(field).setAttribute('data-captured', current.auto ? 'auto' : 'manual');
    var face = guide.classList.contains('guide-face');
    shoot.disabled = true;
    grab(uploadSide, uploadQuality).then(function (blob) {
      if (!blob) { cameraFailed(); return; }
      return (face ? challenge() : Promise.resolve(null)).then(function (capture) {
        photos[field] = blob;
        if (field === 'selfie') { livenessCapture = capture; }
        fileInput(field).value = '';
        setPreview(field, blob, false);
        closeCamera();
        if (face && capture && capture.manual) {
          announce(t('live_manual_done'));
        } else if (face && !capture) {
          announce(t('live_failed'));
          fieldError(field, t('live_failed'));
        } else {
          announce(t(face ? 'live_done' : 'photo_taken', label(field)));
        }
      });
    }).catch(function () { /* the camera was closed during the challenge */ });
  });
  cancel.addEventListener('click', closeCamera);
  dialog.addEventListener('cancel', function (e) { e.preventDefault(); closeCamera(); });

  // A photo the server keeps from the last attempt (a retry) need not be
  // sent again.
  function hasPhoto(field) {
    var input = fileInput(field);
    var sec = section(field);
    return !!photos[field] || !!(input && input.files && input.files.length) ||
      !!(sec && sec.getAttribute('data-kept') === 'true');
  }

  form.addEventListener('submit', function (e) {
    e.preventDefault();
    if (!form.reportValidity()) { return; }
    var fields = ['front', 'selfie'];
    if (needsBack()) { fields.splice(1, 0, 'back'); }
    var missing = [];
    fields.forEach(function (f) {
      if (!hasPhoto(f)) {
        var text = T.err_image_required ? t('err_image_required', label(f)) : label(f);
        fieldError(f, text);
        missing.push({ field: f, message: text });
      }
    });
    if (missing.length) { showSummary(missing); return; }
    showSummary([]);

    var data = new FormData(form);
    Object.keys(photos).forEach(function (f) { data.set(f, photos[f], f + '.jpg'); });
    if (photos.selfie && livenessCapture) {
      data.append('liveness_challenge', livenessCapture.id);
      if (livenessCapture.manual) { data.append('liveness_manual', livenessCapture.manual); }
      livenessCapture.frames.forEach(function (f, i) {
        data.append('liveness_frame', f.blob, 'live' + (i + 1) + '.jpg');
        data.append('liveness_frame_ms', String(f.ms));
      });
    }
    if (!needsBack()) { data.delete('back'); }
    submit.disabled = true;
    announce(t('sending'));
    send(data);
  });

  // send posts the form with XMLHttpRequest, whose upload events (which
  // fetch lacks) drive the progress bar.
  var progress = document.getElementById('upload-progress');
  var progressText = document.getElementById('upload-progress-text');
  var lastSaid = -1;
  function showProgress(fraction) {
    if (!progress) { return; }
    var pct = Math.round(100 * fraction);
    progress.parentNode.hidden = false;
    progress.value = pct;
    progressText.textContent = t('uploading', pct);
    // Say it aloud in quarters, not on every event.
    var quarter = Math.floor(pct / 25);
    if (quarter !== lastSaid) { lastSaid = quarter; announce(t('uploading', pct)); }
  }
  function send(data) {
    var xhr = new XMLHttpRequest();
    xhr.open('POST', form.action);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.setRequestHeader('X-CSRF-Token', csrf);
    xhr.withCredentials = true;
    lastSaid = -1;
    showProgress(0);
    xhr.upload.addEventListener('progress', function (e) {
      if (e.lengthComputable && e.total > 0) { showProgress(e.loaded / e.total); }
    });
    xhr.upload.addEventListener('load', function () { showProgress(1); });
    xhr.addEventListener('error', function () {
      submit.disabled = false;
      if (progress) { progress.parentNode.hidden = true; }
      showBanner(t('err_network'));
      announce(t('err_network'));
    });
    xhr.addEventListener('load', function () {
      var status = xhr.status;
      if (status === 202 || status === 409) { window.location.reload(); return; }
      if (progress) { progress.parentNode.hidden = true; }
      var body = {};
      try { body = JSON.parse(xhr.responseText) || {}; } catch (e) { body = {}; }
      submit.disabled = false;
      if (status === 422 && body.errors) {
        body.errors.forEach(function (p) {
          // The movements cannot be fixed, only repeated: the selfie
          // is taken again (with a new challenge).
          if (p.field.indexOf('liveness_') === 0) {
            p.field = 'selfie';
            delete photos.selfie;
            livenessCapture = null;
          }
          fieldError(p.field, p.message);
        });
        showSummary(body.errors);
        announce(t('errors_title'));
        return;
      }
      var key = status === 403 ? 'err_csrf' : status === 413 ? 'err_too_large' : 'err_generic';
      showBanner(body.message || t(key));
      announce(body.message || t(key));
    });
    xhr.send(data);
  }
})();
