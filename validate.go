package verifyd

import (
	"net/mail"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// Limits on request values. They are documented in docs/api.md.
const (
	MaxURLLength   = 2048
	MaxEmailLength = 254
	// MaxRedirects is how many URLs one allowed-redirect list may hold.
	MaxRedirects = 100
)

var (
	uuidV4Pattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$`)
	phonePattern  = regexp.MustCompile(`^\+?[0-9(][0-9 ().-]{3,30}$`)
)

// Problems collects field validation failures so a caller learns about all
// of them at once.
type Problems []FieldError

// Add records a problem with field.
func (p *Problems) Add(field, problem string) {
	*p = append(*p, FieldError{Field: field, Problem: problem})
}

// AddCode records a problem with field that pages can translate: code
// and arg name it for their catalogs (see FieldError.Code), problem is
// the English text the API sends.
func (p *Problems) AddCode(field, code, arg, problem string) {
	*p = append(*p, FieldError{Field: field, Problem: problem, Code: code, Arg: arg})
}

// Err returns the SPEC 422 error when problems were recorded, else nil.
func (p Problems) Err() error {
	if len(p) == 0 {
		return nil
	}
	return InvalidFields(p)
}

// ValidCustomerID reports whether id is a UUID v4 in its canonical
// hyphenated form, which is what SPEC.md demands of integrators.
func ValidCustomerID(id string) bool { return uuidV4Pattern.MatchString(id) }

// ValidEmail reports whether s is a bare e-mail address (no display name)
// with a domain that has at least one dot.
func ValidEmail(s string) bool {
	if s == "" || len(s) > MaxEmailLength {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && strings.Contains(s[at+1:], ".")
}

// ValidPhone reports whether s looks like a telephone number. The phone is
// optional and only stored, so the rule is deliberately loose.
func ValidPhone(s string) bool { return phonePattern.MatchString(s) }

// URLRule says which URLs a field accepts.
type URLRule struct {
	// AllowHTTP permits plain http, which only development deployments and
	// the sandbox of a --dev server accept for webhooks.
	AllowHTTP bool
}

// CheckURL returns "" when raw is an absolute http(s) URL acceptable under
// the rule, or a short problem description.
func (r URLRule) CheckURL(raw string) string {
	if raw == "" {
		return "is required"
	}
	if len(raw) > MaxURLLength {
		return "is longer than 2048 characters"
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return "must be an absolute URL"
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !r.AllowHTTP {
			return "must use https"
		}
	default:
		return "must use http or https"
	}
	if u.User != nil {
		return "must not contain credentials"
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return "must not contain a fragment"
	}
	// url.Parse accepts any digits as a port; nothing listens on 0 or
	// above 65535, and such a webhook would fail every delivery.
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "must have a port between 1 and 65535"
		}
	}
	if u.Hostname() == "" {
		return "must be an absolute URL"
	}
	return ""
}

// CheckRedirectList validates a list of allowed redirect URLs. Redirect
// targets are browser destinations, so http is allowed (local development
// servers of integrators use it); fragments are refused because they never
// reach a server and exact matching would be ambiguous.
func CheckRedirectList(urls []string) error {
	if len(urls) > MaxRedirects {
		return Errorf(EBadRequest, "at most %d redirect URLs are allowed", MaxRedirects)
	}
	rule := URLRule{AllowHTTP: true}
	for _, u := range urls {
		if problem := rule.CheckURL(u); problem != "" {
			return Errorf(EBadRequest, "invalid redirect URL: %s", problem)
		}
	}
	return nil
}
