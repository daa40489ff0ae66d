package httpapi

import (
	"context"
	"crypto/subtle"
	"net/http"
	"time"

	"github.com/verifyd/verifyd/httpapi/request"
)

// healthz answers while the process is serving.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	request.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 only when the database answers and accepts writes
// (verifyd.Store.Ping), so a load balancer
// stops sending traffic to a replica that lost its database.
// metricsGuard asks for the metrics token when one is configured.
func (s *Server) metricsGuard(next http.Handler) http.Handler {
	if s.cfg.MetricsToken == "" {
		return next
	}
	want := []byte("Bearer " + s.cfg.MetricsToken)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			s.writeError(w, r, errInvalidAuth)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if s.deps.Ready != nil {
		if err := s.deps.Ready.Ping(ctx); err != nil {
			s.logger(r).WarnContext(ctx, "not ready", "err", err)
			s.writeError(w, r, errServiceUnavailable)
			return
		}
	}
	request.WriteJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}
