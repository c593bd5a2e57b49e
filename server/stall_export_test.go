package server

import "time"

// SetStreamWriteTimeout sets how long a streamed client may take to accept a
// write before it is dropped, for streams started from now on, and returns a
// function that puts the previous value back. Call it before the server under
// test starts, so its handlers see the new value.
func SetStreamWriteTimeout(d time.Duration) (restore func()) {
	prev := streamWriteTimeout
	streamWriteTimeout = d
	return func() { streamWriteTimeout = prev }
}

// SetLeaseTerm sets how long a session's lease lasts without renewal (it is
// renewed every third of that), and returns a function that puts the previous
// value back. Call it before the server under test starts.
func SetLeaseTerm(d time.Duration) (restore func()) {
	prev := leaseTerm
	leaseTerm = d
	return func() { leaseTerm = prev }
}
