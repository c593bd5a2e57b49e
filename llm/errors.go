package llm

// An ErrorKind says what sort of failure an *Error is, so callers can choose an
// HTTP status or a retry policy without parsing the sentence.
type ErrorKind string

// The kinds of model failure.
const (
	// KindUnreachable: no HTTP answer at all (connection refused, unknown host, reset).
	KindUnreachable ErrorKind = "unreachable"
	// KindAuth: the model answered 401 or 403.
	KindAuth ErrorKind = "auth"
	// KindModelNotFound: the server does not know the configured model.
	KindModelNotFound ErrorKind = "model_not_found"
	// KindEndpointNotFound: the base URL answers 404 for chat completions.
	KindEndpointNotFound ErrorKind = "endpoint_not_found"
	// KindTimeout: the model did not answer within the per-request limit.
	KindTimeout ErrorKind = "timeout"
	// KindCanceled: the caller's context ended before the model answered.
	KindCanceled ErrorKind = "canceled"
	// KindStatus: any other HTTP error status (429 and 5xx after retries, 400, ...).
	KindStatus ErrorKind = "status"
	// KindBadResponse: the model answered 2xx with something that is not a usable reply.
	KindBadResponse ErrorKind = "bad_response"
	// KindBadRequest: the conversation could not be turned into a request.
	KindBadRequest ErrorKind = "bad_request"
)

// An Error is a failed model call. Error() is the one sentence a user sees (it names
// what went wrong and how to fix it); the low-level cause is kept apart for logs and
// errors.Is/As through Unwrap.
type Error struct {
	Kind    ErrorKind
	Status  int    // HTTP status the model answered, 0 when there was none
	Message string // the user-facing sentence
	Cause   error  // what actually failed; may be nil
}

// Error returns the user-facing sentence.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause, so errors.Is(err, context.Canceled) and the like work.
func (e *Error) Unwrap() error { return e.Cause }
