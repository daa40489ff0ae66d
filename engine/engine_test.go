package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
)

// fixed is a check with a scripted behaviour.
type fixed struct {
	name string
	run  func(ctx context.Context, in *engine.Input) engine.Result
}

func (f fixed) Name() string                                            { return f.name }
func (f fixed) Run(ctx context.Context, in *engine.Input) engine.Result { return f.run(ctx, in) }

func result(r engine.Result) func(context.Context, *engine.Input) engine.Result {
	return func(context.Context, *engine.Input) engine.Result { return r }
}

var (
	pass   = fixed{"pass", result(engine.Passed("ok", nil))}
	review = fixed{"review", result(engine.NeedsReview("look", nil))}
	minor  = fixed{"minor", result(engine.Failed(verifyd.ReasonMinor, "too young", nil))}
	broken = fixed{"broken", result(engine.Errored(errors.New("disk on fire"), nil))}
	gone   = fixed{"gone", result(engine.Errored(engine.ErrUnavailable, nil))}
	panics = fixed{"panics", func(context.Context, *engine.Input) engine.Result { panic("boom") }}
	hangs  = fixed{"hangs", func(ctx context.Context, _ *engine.Input) engine.Result {
		<-ctx.Done()
		time.Sleep(time.Hour)
		return engine.Result{}
	}}
)

func TestPipelineDecisions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		checks      []engine.Check
		status      verifyd.Status
		reason      verifyd.Reason
		review      bool
		ran         int
		err         bool
		unavailable bool
	}{
		{"all pass approves", []engine.Check{pass, pass}, verifyd.StatusApproved, "", false, 2, false, false},
		{"first failure decides and stops", []engine.Check{pass, minor, review}, verifyd.StatusFailed, verifyd.ReasonMinor, false, 2, false, false},
		{"review is never approval", []engine.Check{pass, review, pass}, "", "", true, 3, false, false},
		{"a failure after review still fails", []engine.Check{review, minor}, verifyd.StatusFailed, verifyd.ReasonMinor, false, 2, false, false},
		{"error stops with CheckError", []engine.Check{pass, broken, pass}, "", "", false, 2, true, false},
		{"unavailable component", []engine.Check{gone}, "", "", false, 1, true, true},
		{"panic is an error", []engine.Check{panics}, "", "", false, 1, true, false},
		{"timeout is an error", []engine.Check{hangs}, "", "", false, 1, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := engine.NewPipeline(tt.checks...)
			p.Timeout = 50 * time.Millisecond
			d, err := p.Run(context.Background(), &engine.Input{})
			var ce *engine.CheckError
			if tt.err != errors.As(err, &ce) {
				t.Fatalf("err = %v", err)
			}
			if ce != nil && ce.Unavailable != tt.unavailable {
				t.Fatalf("unavailable = %v", ce.Unavailable)
			}
			if d.Status != tt.status || d.Reason != tt.reason || d.Review != tt.review || len(d.Results) != tt.ran {
				t.Fatalf("decision %+v", d)
			}
			for n, r := range d.Results {
				if r.Check != tt.checks[n].Name() {
					t.Fatalf("result %d names %q", n, r.Check)
				}
			}
		})
	}
}
