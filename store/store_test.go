package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Whatever a model sends as arguments, the stored form is valid JSON, and valid
// JSON other than null is kept as sent (minus surrounding space).
func FuzzArgumentsJSON(f *testing.F) {
	for _, seed := range []string{``, `null`, `{}`, `{"path":"a.txt"}`, ` [1,2] `, `{"a":`, "\xff\xfe", `"x"`, `{"a":"<b>&"}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := ArgumentsJSON(json.RawMessage(in))
		if !json.Valid([]byte(got)) {
			t.Fatalf("ArgumentsJSON(%q) = %q, not valid JSON", in, got)
		}
		trimmed := strings.TrimSpace(in)
		if json.Valid([]byte(trimmed)) && trimmed != "null" && got != trimmed {
			t.Errorf("ArgumentsJSON(%q) = %q, want the input kept as %q", in, got, trimmed)
		}
	})
}

// TestADamageErrorCarriesItsAdvice: wrapped any number of times, a
// DamageError is ErrDamaged, keeps the backend's error, and gives back the
// sentence to show.
func TestADamageErrorCarriesItsAdvice(t *testing.T) {
	cause := errors.New("database disk image is malformed (11)")
	err := fmt.Errorf("save turn of session s_1: %w", &DamageError{Advice: "move the file aside", Err: cause})
	if !errors.Is(err, ErrDamaged) || !errors.Is(err, cause) {
		t.Errorf("%v: is ErrDamaged %v, is its cause %v; want both", err, errors.Is(err, ErrDamaged), errors.Is(err, cause))
	}
	if advice, ok := DamageAdvice(err); !ok || advice != "move the file aside" {
		t.Errorf("DamageAdvice = %q, %v", advice, ok)
	}
	if !strings.Contains(err.Error(), "move the file aside (database disk image is malformed (11))") {
		t.Errorf("message %q", err)
	}
	if _, ok := DamageAdvice(fmt.Errorf("x: %w", ErrNotFound)); ok {
		t.Error("advice found in an error that is not a damage")
	}
}

// TestGoneTellsAnEndedProcess: an owner whose process ended on this host is
// gone; this process, another host, and names not made by NewOwner are not.
func TestGoneTellsAnEndedProcess(t *testing.T) {
	if NewOwner().Gone() {
		t.Error("this process's owner is gone")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	ended := Owner(fmt.Sprintf("%s/%d/abc", strings.ReplaceAll(host, "/", "_"), cmd.Process.Pid))
	if processGone(cmd.Process.Pid) && !ended.Gone() {
		t.Errorf("the owner %s of an ended process is not gone", ended)
	}
	for _, o := range []Owner{Owner(fmt.Sprintf("elsewhere.example/%d/abc", cmd.Process.Pid)), "not an owner", ""} {
		if o.Gone() {
			t.Errorf("%q is gone", o)
		}
	}
}
