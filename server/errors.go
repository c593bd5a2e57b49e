package server

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/secret"
)

// The API's errors. Each maps to one code and one status in statusOf; handlers wrap
// them with a sentence for the user (see failf), and the client maps codes back.
var (
	// ErrInvalidRequest is a malformed body, a missing field or a bad query value.
	ErrInvalidRequest = errors.New("invalid request")
	// ErrBodyTooLarge is a request body over maxBodyBytes.
	ErrBodyTooLarge = errors.New("request body too large")
	// ErrUnauthorized is a missing or wrong bearer token.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrNotFound is an unknown route, execution or trace.
	ErrNotFound = errors.New("not found")
	// ErrSessionNotFound is an unknown session id.
	ErrSessionNotFound = errors.New("session not found")
	// ErrApprovalPending is a new message on a session that waits for decisions.
	ErrApprovalPending = errors.New("approval pending")
	// ErrNoPendingApproval is a decision for a session with nothing pending.
	ErrNoPendingApproval = errors.New("no pending approval")
	// ErrInvalidDecisions is a decision list that does not name exactly the pending calls.
	ErrInvalidDecisions = errors.New("invalid decisions")
	// ErrInvalidConfig is a configuration change that validation refused.
	ErrInvalidConfig = errors.New("invalid config")
	// ErrModel is a model that could not be reached or refused the request.
	ErrModel = errors.New("model error")
	// ErrCancelled is a turn that ended before its answer: its client went away
	// or it was cancelled.
	ErrCancelled = errors.New("turn cancelled")
	// ErrNothingRunning is a cancel for a session with no turn running.
	ErrNothingRunning = errors.New("nothing running")
	// ErrConfigLocked is a change of config.yaml's safety keys that would not
	// apply, because an environment variable overrides them.
	ErrConfigLocked = errors.New("config locked")
)

// statusOf maps an error to its API code and HTTP status: the one place they are paired.
func statusOf(err error) (code string, status int) {
	switch {
	case errors.Is(err, ErrInvalidRequest):
		return api.CodeInvalidRequest, http.StatusBadRequest
	case errors.Is(err, ErrBodyTooLarge):
		return api.CodeBodyTooLarge, http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrUnauthorized):
		return api.CodeUnauthorized, http.StatusUnauthorized
	case errors.Is(err, ErrSessionNotFound):
		return api.CodeSessionNotFound, http.StatusNotFound
	case errors.Is(err, ErrNotFound):
		return api.CodeNotFound, http.StatusNotFound
	case errors.Is(err, ErrApprovalPending):
		return api.CodeApprovalPending, http.StatusConflict
	case errors.Is(err, ErrNoPendingApproval):
		return api.CodeNoPendingApproval, http.StatusConflict
	case errors.Is(err, ErrInvalidDecisions):
		return api.CodeInvalidDecisions, http.StatusBadRequest
	case errors.Is(err, ErrInvalidConfig):
		return api.CodeInvalidConfig, http.StatusBadRequest
	case errors.Is(err, ErrModel):
		return api.CodeModelError, http.StatusBadGateway
	case errors.Is(err, ErrCancelled):
		return api.CodeCancelled, http.StatusConflict
	case errors.Is(err, ErrNothingRunning):
		return api.CodeNothingRunning, http.StatusConflict
	case errors.Is(err, ErrConfigLocked):
		return api.CodeConfigLocked, http.StatusConflict
	default:
		return api.CodeInternal, http.StatusInternalServerError
	}
}

// An apiError keeps the sentence the user sees apart from the cause that is logged.
type apiError struct {
	kind    error  // one of the sentinels above
	message string // one sentence for the user
	cause   error  // logged, never sent
}

func (e *apiError) Error() string { return e.message }

func (e *apiError) Unwrap() []error {
	if e.cause != nil {
		return []error{e.kind, e.cause}
	}
	return []error{e.kind}
}

// failf makes an error of kind with a user-facing sentence.
func failf(kind error, format string, a ...any) error {
	return &apiError{kind: kind, message: fmt.Sprintf(format, a...)}
}

// failWith is failf that keeps cause for the log.
func failWith(kind, cause error, format string, a ...any) error {
	return &apiError{kind: kind, message: fmt.Sprintf(format, a...), cause: cause}
}

// body turns err into the contract's error body; unknown errors say nothing internal.
func body(err error) (int, api.ErrorBody) {
	code, status := statusOf(err)
	msg := "the server failed to handle the request; see its log for the cause"
	var ae *apiError
	if errors.As(err, &ae) {
		// A sentence may quote what failed: a model's error body, a URL.
		msg = secret.Mask(ae.message)
	}
	return status, api.ErrorBody{Error: api.ErrorDetail{Code: code, Message: msg}}
}
