package sdk

import (
	"fmt"
	"net/url"
	"strings"
)

// BaseURLs holds the base URLs of the four mounts of a verifyd deployment.
type BaseURLs struct {
	// Identity is the production identity verification interface.
	Identity string
	// IdentitySandbox is the sandbox identity verification interface.
	IdentitySandbox string
	// Age is the production age verification interface.
	Age string
	// AgeSandbox is the sandbox age verification interface.
	AgeSandbox string
}

// DefaultBaseURLs returns the base URLs that a verifyd server uses when it
// serves all four mounts on one listener with the conventional paths:
// /identity, /sandbox/identity, /age and /sandbox/age under origin, which is
// an absolute http or https URL such as "http://127.0.0.1:8080".
//
// Production deployments often give each mount its own public URL, for
// example a separate host for the sandbox; integrators of such deployments
// use the URLs the operator publishes instead of this function.
func DefaultBaseURLs(origin string) (BaseURLs, error) {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.Contains(origin, "#") {
		return BaseURLs{}, fmt.Errorf("verifyd: origin must be an absolute http or https URL without credentials, query or fragment, got %q", origin)
	}
	o := strings.TrimSuffix(origin, "/")
	return BaseURLs{
		Identity:        o + "/identity",
		IdentitySandbox: o + "/sandbox/identity",
		Age:             o + "/age",
		AgeSandbox:      o + "/sandbox/age",
	}, nil
}
