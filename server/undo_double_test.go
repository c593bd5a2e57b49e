package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/api"
)

// TestUndoAfterTheResultOfARunWasLost: the save that carries a run's end and
// undo record fails, and so does the undo record's own write after it. The
// store then holds the record as the run began, with what the run left
// unknown. Undo in the same process must read it as the store holds it (as a
// restart would): it refuses without force, naming the file that may be half
// written, instead of restoring the other run's file and reporting the turn
// undone while the lost run's file stays; with force it takes back both.
func TestUndoAfterTheResultOfARunWasLost(t *testing.T) {
	rig := newTwoWritesRig(t, map[string]int{"Save": 1, "PutUndoRecord": 1})
	if got, _ := os.ReadFile(filepath.Join(rig.ws, "b.txt")); string(got) != "new b\n" {
		t.Fatalf("the second run did not write b.txt: %q", got)
	}
	rig.undoNeedsForce(t, "b.txt", "a.txt", "new a\n")
}

// TestUndoAfterARunThatChangedNothingCouldNotDropItsRecord: a run rewrites
// a.txt with what it held, so its undo record, stored with its start, is
// dropped when it ends; that delete fails. The store then still holds the
// record as the run began, with its end unknown, and undo in the same
// process must read it so, as a restart would: it refuses without force,
// naming a.txt, instead of taking back only b.txt; with force it restores
// both (a.txt to what it held).
func TestUndoAfterARunThatChangedNothingCouldNotDropItsRecord(t *testing.T) {
	rig := newWritesRig(t, map[string]int{"DeleteUndoRecord": 1}, `{"path": "a.txt", "content": "old a\n"}`)
	rig.fs.mu.Lock()
	n := rig.fs.calls["DeleteUndoRecord"]
	rig.fs.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d deletes of undo records, want the one of the run that changed nothing", n)
	}
	rig.undoNeedsForce(t, "a.txt", "b.txt", "new b\n")
}

// undoNeedsForce checks that undoing the rig's turn is refused without force,
// naming unknown (the file whose run's end is unknown) and leaving other with
// its content, and that undo with force restores a.txt to "old a" and
// removes b.txt.
func (rig twoWritesRig) undoNeedsForce(t *testing.T, unknown, other, otherHolds string) {
	t.Helper()
	url := "/sessions/" + rig.session + "/undo"
	var refused api.ErrorBody
	if code := doJSON(t, rig.h.URL, "rig-token", "POST", url, api.UndoRequest{}, &refused); code != 409 ||
		refused.Error.Code != api.CodeConflict || !strings.Contains(refused.Error.Message, unknown) {
		t.Fatalf("undo without force: %d %+v, want a 409 conflict naming %s", code, refused, unknown)
	}
	if got, _ := os.ReadFile(filepath.Join(rig.ws, other)); string(got) != otherHolds {
		t.Errorf("a refused undo changed %s: %q", other, got)
	}
	var undone api.UndoReply
	if code := doJSON(t, rig.h.URL, "rig-token", "POST", url, api.UndoRequest{Force: true}, &undone); code != 200 {
		t.Fatalf("undo with force: %d %+v", code, undone)
	}
	if got, _ := os.ReadFile(filepath.Join(rig.ws, "a.txt")); string(got) != "old a\n" {
		t.Errorf("a.txt after undo: %q", got)
	}
	if _, err := os.Stat(filepath.Join(rig.ws, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("b.txt after undo: %v", err)
	}
}
