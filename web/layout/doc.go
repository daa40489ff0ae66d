// Package layout is what every server-rendered page set of verifyd shares
// (the identity hosted page, the age flow's pages, the review console and
// whatever joins them): the base HTML frame (layout.html, template "page")
// and the stylesheet of the person-facing pages, rendering with the
// response's security headers and Content-Security-Policy, the origin check
// and double-submit token of forms, language negotiation (English, German,
// French) with message catalogs, and static assets served under
// content-hashed names with long-lived caching headers.
//
// It knows no routes and no services: the page sets (packages under web/)
// build on it, and httpapi/routes.go mounts their handlers. Request-level
// infrastructure (the mount, the client address, the one mapping of errors
// to statuses) is in package httpapi/request.
package layout
