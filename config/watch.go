package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// debounce gathers the burst of events one save makes (truncate, write, chmod, or
// create and rename for an atomic save) into one reload.
const debounce = 100 * time.Millisecond

// Watch reloads the config file at path whenever it changes on disk and calls
// onChange with the new, validated *Config, or onError with the problem (an
// *Error for a bad, empty or removed file) while the caller keeps the old config
// in force. It watches the file's directory (and, for a symlink, its target's)
// rather than the file so that editors' atomic saves and rename-replaces (like
// WriteSafety's) are seen. A save that leaves the content as it was calls
// nothing. Callbacks run one at a time on Watch's own goroutine and
// none runs after stop returns, so stop must not be called from a callback (it
// waits for that goroutine).
func Watch(path string, onChange func(*Config), onError func(error)) (stop func(), err error) {
	if path == "" {
		return nil, &Error{Reason: "there is no config file to watch (pass --config PATH or create ./" + FileName + ")"}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("cannot watch %s: %w", path, err)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("cannot watch %s: %w", path, err)
	}
	// A config.yaml that is a symlink (into a dotfiles repository, say) is edited,
	// and rewritten by WriteSafety, at its target, so that directory is watched too.
	names := map[string]bool{abs: true}
	dirs := []string{filepath.Dir(abs)}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		names[real] = true
		if d := filepath.Dir(real); d != dirs[0] {
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		if err := w.Add(d); err != nil {
			w.Close()
			return nil, fmt.Errorf("cannot watch %s: %w", path, err)
		}
	}
	last, _ := os.ReadFile(abs)

	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		timer := time.NewTimer(debounce)
		timer.Stop()
		defer timer.Stop()
		for {
			select {
			case <-done:
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if names[filepath.Clean(ev.Name)] {
					timer.Reset(debounce)
				}
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				onError(fmt.Errorf("watching %s: %w", path, err))
			case <-timer.C:
				data, err := os.ReadFile(abs)
				if errors.Is(err, os.ErrNotExist) {
					onError(&Error{Path: path, Reason: "was removed; the last good config stays in force until it is back"})
					last = nil
					continue
				}
				if err != nil {
					onError(&Error{Path: path, Reason: fmt.Sprintf("cannot be read (%v); the last good config stays in force", unwrapPathError(err))})
					continue
				}
				if last != nil && bytes.Equal(data, last) {
					continue
				}
				// An empty file is most often a save caught between truncate and
				// write; applying it would swap every setting for its default
				// until the write lands. last is kept so that the write reloads.
				if len(bytes.TrimSpace(data)) == 0 {
					onError(&Error{Path: path, Reason: "is empty; the last good config stays in force (to run on the defaults, leave a comment in it)"})
					continue
				}
				last = data
				c, err := load(data, path, true)
				if err != nil {
					onError(err)
					continue
				}
				onChange(c)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			w.Close()
			wg.Wait()
		})
	}, nil
}
