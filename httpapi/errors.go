package httpapi

import (
	"net/http"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/httpapi/request"
)

// writeError answers with SPEC's error body (request.WriteError, the one
// place errors become statuses and bodies), logging with the request's id.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	request.WriteError(w, r, s.deps.Logger, err)
}

// Errors with fixed SPEC messages used by the API's handlers; those the
// page sets answer too are in package request.
var (
	errInvalidAuth        = &verifyd.Error{Code: verifyd.EUnauthorized, Message: verifyd.MsgInvalidAuthentication}
	errInvalidClient      = &verifyd.Error{Code: verifyd.EUnauthorized, Message: verifyd.MsgInvalidClient}
	errServiceUnavailable = &verifyd.Error{Code: verifyd.EUnavailable, Message: verifyd.MsgUnavailable}
)
