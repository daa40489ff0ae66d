package httpapi

import (
	"context"
	"net/http"
	"time"
)

// healthz answers while the process is serving.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 only when the database answers, so a load balancer
// stops sending traffic to a replica that lost its database.
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
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}
