// Package hosted is the identity hosted page at {identity base
// URL}/verify/{token}, where a B1 redirect_uri sends the customer: the
// page, the capture form's submission, the liveness challenge, the status
// polling, the desktop-to-phone hand-off's QR code, the sandbox panel and
// the page's assets (docs/hosted-flow.md). Routes are in
// httpapi/routes.go; the use cases in package identity; the frame,
// stylesheet, headers, languages, origin check and token in web/layout.
//
// The capture form (template "capture" in CaptureFS, FillCaptureForm,
// ReadForm, ProblemText, Script, Headers, JSText) is exported because the
// age flow's document method (web/agepages) shows the same form.
package hosted
