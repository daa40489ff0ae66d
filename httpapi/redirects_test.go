package httpapi_test

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/testserver"
)

func (c *client) list(t *testing.T) []string {
	t.Helper()
	res := c.send("GET", "/v1/business/allowed-redirects", nil)
	if res.status != 200 {
		t.Fatalf("GET list: %d %s", res.status, res.raw)
	}
	m := res.json(t)
	wantKeys(t, m, "body")
	out := []string{}
	for _, u := range m["body"].([]any) {
		out = append(out, u.(string))
	}
	return out
}

func (c *client) change(t *testing.T, method string, urls []string) {
	t.Helper()
	res := c.send(method, "/v1/business/allowed-redirects", urls)
	if res.status != http.StatusNoContent || len(res.raw) != 0 {
		t.Fatalf("%s: status %d body %q, want 204 with no body", method, res.status, res.raw)
	}
}

func TestAllowedRedirects(t *testing.T) {
	t.Parallel()
	eachDialect(t, testserver.Options{}, func(t *testing.T, ts *testserver.Server) {
		for _, i := range verifyd.Interfaces {
			c := newClient(t, ts, i, prd)
			if got := c.list(t); len(got) != 0 {
				t.Fatalf("%s: new list = %v", i, got)
			}
			a, b, d := "https://a.example.com/done", "https://b.example.com/x?y=1", "http://localhost:3000/cb"
			c.change(t, "PATCH", []string{a, b})
			c.change(t, "PATCH", []string{b, d}) // b is not added twice
			if got := c.list(t); !reflect.DeepEqual(got, []string{a, b, d}) {
				t.Fatalf("%s after PATCH: %v", i, got)
			}
			c.change(t, "DELETE", []string{b, "https://absent.example.com/"})
			if got := c.list(t); !reflect.DeepEqual(got, []string{a, d}) {
				t.Fatalf("%s after DELETE: %v", i, got)
			}
			c.change(t, "PUT", []string{d})
			if got := c.list(t); !reflect.DeepEqual(got, []string{d}) {
				t.Fatalf("%s after PUT: %v", i, got)
			}
		}
		// Lists are per interface and environment.
		if got := newClient(t, ts, idp, sbx).list(t); len(got) != 0 {
			t.Fatalf("sandbox list sees production entries: %v", got)
		}
		c := newClient(t, ts, age, prd)
		c.change(t, "PUT", []string{})
		if got := c.list(t); len(got) != 0 {
			t.Fatalf("PUT [] left %v", got)
		}
		if got := newClient(t, ts, idp, prd).list(t); len(got) != 1 {
			t.Fatalf("age PUT changed the identity list: %v", got)
		}
		// Every change is in the audit log, by the key that signed it.
		entries, err := ts.Store.AuditEntries(context.Background(), verifyd.AuditFilter{BusinessID: ts.Business.ID})
		if err != nil {
			t.Fatal(err)
		}
		idKey := ts.Credential(idp, prd).APIKey
		var got []string
		for _, e := range entries {
			if strings.HasPrefix(e.Action, "redirects.") && e.Subject == idKey {
				if e.Actor != (verifyd.Actor{Kind: verifyd.ActorAPIKey, Name: idKey}) {
					t.Errorf("redirect change recorded with actor %+v", e.Actor)
				}
				got = append(got, e.Action+" "+e.Detail)
			}
		}
		want := []string{
			"redirects.add identity/production: https://a.example.com/done https://b.example.com/x?y=1",
			"redirects.add identity/production: https://b.example.com/x?y=1 http://localhost:3000/cb",
			"redirects.remove identity/production: https://b.example.com/x?y=1 https://absent.example.com/",
			"redirects.replace identity/production: http://localhost:3000/cb",
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("audited redirect changes:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

func TestAllowedRedirectsBadBodies(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	c := newClient(t, ts, idp, prd)
	many := make([]string, verifyd.MaxRedirects+1)
	for n := range many {
		many[n] = "https://example.com/" + string(rune('a'+n%26)) + string(rune('a'+n/26))
	}
	tests := []struct {
		name string
		body any
		msg  string
	}{
		{"object", []byte(`{"body":["https://a.example.com/"]}`), verifyd.MsgMalformed},
		{"null", []byte(`null`), verifyd.MsgMalformed},
		{"not JSON", []byte(`https://a.example.com/`), verifyd.MsgMalformed},
		{"numbers", []byte(`[1,2]`), ""},
		{"relative URL", []string{"/done"}, ""},
		{"fragment", []string{"https://a.example.com/#x"}, ""},
		{"javascript scheme", []string{"javascript:alert(1)"}, ""},
		{"too many", many, ""},
	}
	for _, method := range []string{"PATCH", "PUT", "DELETE"} {
		for _, tt := range tests {
			t.Run(method+" "+tt.name, func(t *testing.T) {
				c.t = t
				res := c.send(method, "/v1/business/allowed-redirects", tt.body)
				if res.status != 400 {
					t.Fatalf("status %d, want 400: %s", res.status, res.raw)
				}
				if tt.msg != "" {
					res.wantError(t, 400, tt.msg)
				}
			})
		}
	}
	if got := c.list(t); len(got) != 0 {
		t.Fatalf("refused changes altered the list: %v", got)
	}
}
