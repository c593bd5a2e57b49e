// Package undo keeps what the file tools replace so that a user can undo a
// turn's changes to the workspace, and redo them.
//
// Before a file tool's run changes the workspace (write_file, delete_file,
// move_file, copy_file, create_directory) the server asks a Keeper to Prepare
// a record: the previous bytes of every file the run will overwrite or remove
// go into content-addressed blobs in the state store, a Vault (stored once per
// content), with the paths the run will create. After the run, Finished reads
// what the run left behind, so that a later change by the user is seen as a
// conflict. The server stores both with the run's ledger records (store.Start
// and store.Finish carry them) and calls Kept once the second is stored, or
// Begun when it could not be (the record then counts as the store holds it, a
// run cut short); Begin and Finish do the same with writes of their own, for a
// caller without a ledger. Undo builds a plan for a turn and every later turn, newest run
// first, checks every path before changing any, writes the plan to a journal,
// applies it and marks it done; Recover finishes or rolls back a journal left
// by a killed process, so the workspace is either fully restored or untouched.
// Redo re-applies what the last undo reverted under the same rules.
//
// The package must never touch the workspace except through tools.Workspace
// (the same resolution and checks as the tools: no path outside the
// workspace, no symbolic or hard link followed), never overwrite a file whose
// content differs from what a run left unless forced, never leave a plan half
// applied, and never grow past its limits: the oldest records go first.
package undo

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/ailab/ai-lab/tools"
)

// Limits bound what a Keeper keeps (config undo.*).
type Limits struct {
	// MaxBytes bounds the blobs kept in total; the oldest records go first.
	MaxBytes int64
	// MaxAge is how long a record is kept.
	MaxAge time.Duration
	// MaxFileBytes is the largest file whose content is kept.
	MaxFileBytes int64
	// MaxRecords bounds how many runs are kept, whatever their size
	// (0: DefaultMaxRecords); the oldest go first.
	MaxRecords int
}

// DefaultMaxRecords is MaxRecords when none is set: some 70 MB of records in
// memory at most, far more runs than undo.max_age usually sees.
const DefaultMaxRecords = 100_000

// A State is what one workspace path held at one moment.
type State struct {
	Kind   string      `json:"kind"`             // tools.EntryNone, EntryFile, EntryDir, EntrySymlink or EntryOther
	Hash   string      `json:"hash,omitempty"`   // a file's content blob; "" when it was over the size limit
	Size   int64       `json:"size,omitempty"`   // a file's size
	Mode   fs.FileMode `json:"mode,omitempty"`   // a file's permission bits
	Target string      `json:"target,omitempty"` // a symbolic link's target
}

// same reports whether a path that holds s holds what want describes.
func (s State) same(want State) bool {
	if s.Kind != want.Kind {
		return false
	}
	switch s.Kind {
	case tools.EntryFile:
		if s.Hash == "" || want.Hash == "" {
			return s.Size == want.Size && s.Hash == want.Hash
		}
		return s.Hash == want.Hash
	case tools.EntrySymlink:
		return s.Target == want.Target
	}
	return true
}

// A PathChange is one path a run changed: what it held before the run and
// what the run left.
type PathChange struct {
	Path   string `json:"path"`
	Before State  `json:"before"`
	After  State  `json:"after"`
}

// A Run names the tool run a record belongs to: its ledger entry and turn.
type Run struct {
	ExecutionID string `json:"execution_id"`
	Session     string `json:"session"`
	TraceID     string `json:"trace_id"`
	Turn        int    `json:"turn"` // 1-based number of the user turn in the session
	Tool        string `json:"tool"`
}

// A Record is what undo keeps of one run.
type Record struct {
	Run
	Seq int64     `json:"seq"`
	At  time.Time `json:"at"`
	// Workspace is the folder the run changed (tools.workspace then).
	Workspace string `json:"workspace"`
	// Move is set for move_file: Paths[0] went to Paths[1] in one rename.
	Move  bool         `json:"move,omitempty"`
	Paths []PathChange `json:"paths,omitempty"`
	// Created are the folders the run made on its way, outermost first.
	Created []string `json:"created,omitempty"`
	// Finished is set once the run's end was recorded; a record without it
	// is of a run that was interrupted (the process died mid-run).
	Finished bool `json:"finished"`
	// NotUndoable says why the run cannot be undone ("" when it can).
	NotUndoable string `json:"not_undoable,omitempty"`
	// Evicted is set when the record's contents went to keep within the
	// limits; the record stays so an undo can say why it cannot be done.
	Evicted bool `json:"evicted,omitempty"`
}

// blobs returns the content blobs the record refers to with their sizes.
func (r *Record) blobs() map[string]int64 {
	out := map[string]int64{}
	for _, p := range r.Paths {
		for _, s := range []State{p.Before, p.After} {
			if s.Hash != "" {
				out[s.Hash] = s.Size
			}
		}
	}
	return out
}

// hashOf is the blob name of content.
func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// blob reads the content blob of hash.
func (k *Keeper) blob(hash string) ([]byte, error) {
	data, err := k.vault.UndoBlob(bg, hash)
	if err != nil {
		return nil, fmt.Errorf("the kept content %s.. is missing: %w", hash[:12], err)
	}
	return data, nil
}

// errFault is the simulated kill of a test's fault hook.
var errFault = errors.New("undo: stopped by the fault hook")
