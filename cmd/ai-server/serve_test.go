package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServeRefusals(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("safety:\n  preset: strickt\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "afile"), []byte("x"), 0o600)
	wsFile := filepath.Join(dir, "wsfile.yaml")
	os.WriteFile(wsFile, []byte("server:\n  state_dir: "+filepath.Join(dir, "state")+"\ntools:\n  workspace: "+filepath.Join(dir, "afile")+"\n"), 0o600)
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("server:\n  state_dir: "+filepath.Join(dir, "state")+"\ntools:\n  workspace: "+filepath.Join(dir, "ws")+"\n"), 0o600)
	cases := []struct {
		name string
		args []string
		code int
		line string
	}{
		{"port in use", []string{"--config", good, "--addr", busy.Addr().String()}, exitFailure, "cannot listen on " + busy.Addr().String()},
		{"bad preset", []string{"--config", bad}, exitUsage, "safety.preset"},
		{"missing config file", []string{"--config", filepath.Join(dir, "nope.yaml")}, exitUsage, "nope.yaml"},
		{"bad addr", []string{"--config", good, "--addr", "localhost"}, exitUsage, "--addr"},
		{"stray argument", []string{"serve"}, exitUsage, "unexpected argument"},
		{"workspace is a file", []string{"--config", wsFile}, exitUsage, "tools.workspace"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(c.args, strings.NewReader(""), &out, &errb)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, c.code, errb.String())
			}
			lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
			last := lines[len(lines)-1]
			if !strings.Contains(last, c.line) {
				t.Fatalf("stderr %q does not name %q", errb.String(), c.line)
			}
		})
	}
}
