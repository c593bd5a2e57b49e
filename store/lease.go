package store

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// An Owner names one holder of session leases: a host, a process on it and one
// backend value in that process (two servers in one test process are two
// owners).
type Owner string

// NewOwner returns a fresh owner name for this process: host/pid/random.
func NewOwner() Owner {
	host, _ := os.Hostname()
	host = strings.ReplaceAll(host, "/", "_")
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return Owner(fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:])))
}

// Gone reports whether the process that holds owner is known to have ended:
// it ran on this host and its pid no longer exists. A holder on another host,
// or one whose state cannot be told, counts as alive; its lease then ends by
// expiry alone.
func (o Owner) Gone() bool {
	parts := strings.Split(string(o), "/")
	if len(parts) != 3 {
		return false
	}
	host, _ := os.Hostname()
	if parts[0] != strings.ReplaceAll(host, "/", "_") {
		return false
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	return processGone(pid)
}

// ErrBusy means another live owner holds the session's lease: a turn of that
// session runs in another ai-server process sharing the state.
var ErrBusy = errors.New("the session is in use by another ai-server process")

// ErrLeaseLost means a write was refused because the writer no longer holds
// the session's lease (it expired and another owner took it, or the session is
// gone); nothing of the write was stored.
var ErrLeaseLost = errors.New("the session's lease is held by another owner")

// ErrCallStarted means a ledger start record for the same call already exists:
// the call started before (in this process or another) and must not run again.
var ErrCallStarted = errors.New("this tool call already started")

// Interrupted is the ledger error of a run whose process stopped before it
// recorded an outcome (CONTRACT section 9).
const Interrupted = "interrupted: the server stopped while this ran"

// A Lease is a session held by one owner: what Acquire found.
type Lease struct {
	Version int64 // the session's save count when the lease was taken
	// Pending is the session's pending state as Save stored it (nil: none),
	// read in the same atomic step as the lease.
	Pending json.RawMessage
	// TookOver is set when the lease was taken from another owner whose process
	// ended or whose lease expired; its unfinished runs are now marked Interrupted.
	TookOver bool
}
