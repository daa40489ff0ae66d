// Package agepages is the hosted age-verification pages at
// {age base URL}/flow/{request id}, where /oauth/authorize (httpapi/age.go)
// sends the person, with the account page at /account, its e-mail pages
// and the passkey ceremonies. Routes are in httpapi/routes.go
// (ageFlowRoutes); the use cases in package agehosted; docs/age.md
// describes the flow.
//
// The pages share the identity hosted page's machinery: its headers
// (hosted.Headers, with form-action widened to the integrator's origin),
// its catalog (merged with the age texts of i18n.go), its capture form
// (hosted.CaptureFS, hosted.FillCaptureForm, hosted.ReadForm) and script
// (hosted.Script); the frame, stylesheet, languages and origin check are
// web/layout's. Accounts use webauth: sessions scoped to the mount, a
// form token before sign-in, the session's CSRF token after.
package agepages
