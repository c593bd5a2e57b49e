package client

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// StateDir returns the folder where ai-server keeps its state and token (CONTRACT
// section 2): explicit if set, else $XDG_STATE_HOME/ai-lab, else ~/.local/state/ai-lab.
// getenv is os.Getenv outside tests.
func StateDir(explicit string, getenv func(string) string) (string, error) {
	if explicit != "" {
		return explicit, nil
	}
	if x := getenv("XDG_STATE_HOME"); x != "" {
		return filepath.Join(x, "ai-lab"), nil
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot find the state folder: neither XDG_STATE_HOME nor HOME is set; pass --token or set AILAB_TOKEN")
		}
		home = h
	}
	return filepath.Join(home, ".local", "state", "ai-lab"), nil
}

// A TokenSource says where a token came from, for messages.
type TokenSource struct {
	Token string // the bearer token; empty when none was found
	From  string // "--token", "AILAB_TOKEN" or the token file's path
	File  string // the token file that was (or would have been) read
}

// FindToken picks the token the way the contract says: the flag, then AILAB_TOKEN, then
// the file <state_dir>/token that ai-server writes on first start. A missing file is not
// an error (the server will answer 401 with a clear message); an unreadable one is.
func FindToken(flagToken, stateDir string, getenv func(string) string) (TokenSource, error) {
	dir, dirErr := StateDir(stateDir, getenv)
	file := ""
	if dirErr == nil {
		file = filepath.Join(dir, "token")
	}
	if flagToken != "" {
		return TokenSource{Token: flagToken, From: "--token", File: file}, nil
	}
	if t := getenv("AILAB_TOKEN"); t != "" {
		return TokenSource{Token: t, From: "AILAB_TOKEN", File: file}, nil
	}
	if dirErr != nil {
		return TokenSource{}, dirErr
	}
	b, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return TokenSource{File: file}, nil
	}
	if err != nil {
		return TokenSource{File: file}, fmt.Errorf("cannot read the token file %s (%v); fix its permissions or pass --token", file, err)
	}
	return TokenSource{Token: strings.TrimSpace(string(b)), From: file, File: file}, nil
}
