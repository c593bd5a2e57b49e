package tools

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// A Changer is a file tool that can say, before a call runs, which workspace
// paths the call may change, so that what they hold can be kept for undo. The
// paths are resolved exactly as the tool will resolve them (Canonical), so the
// record and the run cannot disagree about which file is meant.
type Changer interface {
	// Changes returns the workspace the tool acts in and the paths the call
	// with these arguments may change, or the refusal the run would give.
	Changes(args json.RawMessage) (*Workspace, Changes, error)
}

// Changes are the workspace paths a file tool's call may change.
type Changes struct {
	// Paths are canonical, slash-separated workspace paths: the file written,
	// deleted or created, or a move's or copy's source then destination.
	Paths []string
	// Move is set for move_file: Paths[0] goes to Paths[1] as one rename.
	Move bool
	// Reads is how many leading Paths the call only reads (copy_file's
	// source); their state is not changed by the run.
	Reads int
}

// withChanges gives the tool its Changer.
func (t *fileTool[A]) withChanges(ws *Workspace, c func(A) (Changes, error)) *fileTool[A] {
	t.ws, t.changes = ws, c
	return t
}

// Changes implements Changer for the file tools that change the workspace.
func (t *fileTool[A]) Changes(raw json.RawMessage) (*Workspace, Changes, error) {
	if t.changes == nil {
		return nil, Changes{}, nil
	}
	// Only the paths are decoded: the run decodes strictly and refuses what
	// is wrong, and a 100 KB content must cost little here.
	paths, ok := pathFields(raw)
	if !ok {
		if err := json.Unmarshal(raw, &paths); err != nil {
			return nil, Changes{}, err
		}
	}
	var args A
	switch a := any(&args).(type) {
	case *writeArgs:
		a.Path = paths.Path
	case *pathArgs:
		a.Path = paths.Path
	case *transferArgs:
		a.Source, a.Destination = paths.Source, paths.Destination
	default:
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, Changes{}, err
		}
	}
	c, err := t.changes(args)
	return t.ws, c, err
}

// changesOf turns a locator's Object into the Changes of a call.
func changesOf(o Object, err error) (Changes, error) {
	return Changes{Paths: o.Paths}, err
}

// Kinds of an Entry.
const (
	EntryNone    = "none"
	EntryFile    = "file"
	EntryDir     = "dir"
	EntrySymlink = "symlink"
	EntryOther   = "other"
)

// An Entry is what one workspace path holds, as undo keeps it.
type Entry struct {
	Kind string      // EntryNone, EntryFile, EntryDir, EntrySymlink or EntryOther
	Mode fs.FileMode // permission bits of a file
	Size int64       // size of a file
	// Data is a file's content; nil when it is over the limit given to Inspect.
	Data []byte
	// Target is a symbolic link's target.
	Target string
	// Links is a regular file's hard-link count (0 when unknown).
	Links uint64
}

// exact resolves p, a canonical path kept by undo, and refuses it unless it
// still names the same place: a path that now goes through a symbolic link
// (even one inside the workspace) or leaves the workspace is never followed.
func (w *Workspace) exact(p string) (string, error) {
	if p == "" || strings.IndexFunc(p, unicode.IsControl) >= 0 {
		return "", fmt.Errorf("path %q is not a workspace path", p)
	}
	if filepath.IsAbs(p) || filepath.VolumeName(p) != "" || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) {
		return "", refuse("path %s is absolute; undo takes paths relative to the workspace", p)
	}
	rel := filepath.Clean(filepath.FromSlash(p))
	if !filepath.IsLocal(rel) {
		return "", refuse("path %s leaves the workspace", p)
	}
	parts := strings.Split(rel, string(filepath.Separator))
	for i := 1; i < len(parts); i++ {
		prefix := filepath.Join(parts[:i]...)
		fi, err := w.root.Lstat(prefix)
		if err != nil {
			break // missing: what does not exist leads nowhere
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return "", refuse("path %s now goes through a symbolic link (%s); undo does not follow links", p, slash(prefix))
		}
	}
	return rel, nil
}

// Inspect returns what the canonical path p holds now without following a
// link at its end; a file's content is read when it is at most maxBytes. A
// path that went outside the workspace or through a link is refused.
func (w *Workspace) Inspect(p string, maxBytes int64) (Entry, error) {
	rel, err := w.exact(p)
	if err != nil {
		return Entry{}, err
	}
	fi, err := w.root.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Entry{Kind: EntryNone}, nil
	case err != nil:
		return Entry{}, opError("inspect", p, err)
	case fi.IsDir():
		return Entry{Kind: EntryDir, Mode: fi.Mode().Perm()}, nil
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := w.root.Readlink(rel)
		if err != nil {
			return Entry{}, opError("inspect", p, err)
		}
		return Entry{Kind: EntrySymlink, Target: t}, nil
	case !fi.Mode().IsRegular():
		return Entry{Kind: EntryOther}, nil
	}
	e := Entry{Kind: EntryFile, Mode: fi.Mode().Perm(), Size: fi.Size()}
	e.Links, _ = hardLinks(fi)
	if fi.Size() > maxBytes {
		return e, nil
	}
	f, err := w.open(rel, os.O_RDONLY|nofollow, 0)
	if err != nil {
		return Entry{}, opError("read", p, err)
	}
	defer f.Close()
	// The size read before, plus one byte to see a file that grew since.
	buf := make([]byte, fi.Size()+1)
	n, err := io.ReadFull(f, buf)
	switch {
	case err == nil:
		// Grew since the Lstat: read the rest within the limit.
		rest, err := io.ReadAll(io.LimitReader(f, maxBytes-int64(n)+1))
		if err != nil {
			return Entry{}, opError("read", p, err)
		}
		buf = append(buf, rest...)
		n = len(buf)
	case !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF):
		return Entry{}, opError("read", p, err)
	}
	e.Data = buf[:n]
	if int64(len(e.Data)) > maxBytes {
		e.Data = nil
	}
	e.Size = int64(len(e.Data))
	return e, nil
}

// Missing returns the folders above the canonical path p that do not exist
// yet, the outermost first: the ones a run creates on its way to p.
func (w *Workspace) Missing(p string) []string {
	var out []string
	dir := filepath.Dir(filepath.FromSlash(p))
	for dir != "." && dir != string(filepath.Separator) {
		if _, err := w.root.Lstat(dir); err == nil {
			break
		}
		out = append([]string{slash(dir)}, out...)
		dir = filepath.Dir(dir)
	}
	return out
}

// PutFile makes the canonical path p a regular file holding data with mode,
// replacing the name (never writing through it: a symbolic or hard link
// planted there is replaced, not followed). Missing parent folders are made.
func (w *Workspace) PutFile(p string, data []byte, mode fs.FileMode) error {
	rel, err := w.exact(p)
	if err != nil {
		return err
	}
	if err := w.mkdirParent(rel, p); err != nil {
		return err
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	tmp := filepath.Join(filepath.Dir(rel), ".undo-"+hex.EncodeToString(b[:]))
	if mode == 0 {
		mode = 0o644
	}
	f, err := w.open(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode.Perm())
	if err != nil {
		return opError("restore", p, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if fi, lerr := w.root.Lstat(rel); lerr == nil && fi.IsDir() {
			err = fmt.Errorf("path %s is now a folder", p)
		}
	}
	if err == nil {
		err = w.root.Rename(tmp, rel)
	}
	if err != nil {
		_ = w.root.Remove(tmp)
		return opError("restore", p, err)
	}
	return nil
}

// PutSymlink makes the canonical path p a symbolic link to target, as a
// deleted link was; the target is kept as it was, never followed here.
func (w *Workspace) PutSymlink(p, target string) error {
	rel, err := w.exact(p)
	if err != nil {
		return err
	}
	if err := w.mkdirParent(rel, p); err != nil {
		return err
	}
	if err := w.RemoveFile(p); err != nil {
		return err
	}
	if err := w.root.Symlink(target, rel); err != nil {
		return opError("restore", p, err)
	}
	return nil
}

// RemoveFile removes what the canonical path p names unless it is a folder;
// a link is removed itself. A missing path is not an error.
func (w *Workspace) RemoveFile(p string) error {
	rel, err := w.exact(p)
	if err != nil {
		return err
	}
	fi, err := w.root.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return opError("remove", p, err)
	case fi.IsDir():
		return fmt.Errorf("path %s is a folder; undo removes files only", p)
	}
	if err := w.root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return opError("remove", p, err)
	}
	return nil
}

// RemoveEmptyDir removes the folder p when it is empty and reports whether
// it did; a folder with entries, or a missing one, is left as it is.
func (w *Workspace) RemoveEmptyDir(p string) (bool, error) {
	rel, err := w.exact(p)
	if err != nil {
		return false, err
	}
	fi, err := w.root.Lstat(rel)
	if err != nil || !fi.IsDir() {
		return false, nil
	}
	if err := w.root.Remove(rel); err != nil {
		return false, nil // not empty: it holds the user's files now
	}
	return true, nil
}

// Names lists the names in the folder p (canonical, as kept by undo), for
// an undo preview to tell whether a folder it would remove is empty then; a
// path that is not a folder has none.
func (w *Workspace) Names(p string) ([]string, error) {
	rel, err := w.exact(p)
	if err != nil {
		return nil, err
	}
	fi, err := w.root.Lstat(rel)
	if err != nil || !fi.IsDir() {
		return nil, nil
	}
	f, err := w.root.Open(rel)
	if err != nil {
		return nil, opError("list", p, err)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, opError("list", p, err)
	}
	return names, nil
}

// MakeDir creates the folder p and its missing parents.
func (w *Workspace) MakeDir(p string) error {
	rel, err := w.exact(p)
	if err != nil {
		return err
	}
	if err := w.root.MkdirAll(rel, 0o755); err != nil {
		return opError("create directory", p, err)
	}
	return nil
}

// Rename moves from to to, both canonical paths, refusing when to exists:
// undo never overwrites what it did not record.
func (w *Workspace) Rename(from, to string) error {
	src, err := w.exact(from)
	if err != nil {
		return err
	}
	dst, err := w.exact(to)
	if err != nil {
		return err
	}
	if _, err := w.root.Lstat(dst); err == nil {
		return fmt.Errorf("cannot move %s back to %s: %s exists", from, to, to)
	}
	if fi, err := w.root.Lstat(src); err == nil && fi.IsDir() && strings.HasPrefix(dst, src+string(filepath.Separator)) {
		return fmt.Errorf("cannot move directory %s into itself", from)
	}
	if err := w.mkdirParent(dst, to); err != nil {
		return err
	}
	if err := w.root.Rename(src, dst); err != nil {
		return opError("move", from, err)
	}
	return nil
}

// argPaths are the path arguments of a file tool's call.
type argPaths struct{ Path, Source, Destination string }

// pathFields reads the path arguments of a flat JSON object of strings,
// skipping the other values with a byte search rather than a full decode (a
// write_file's content may be megabytes). It reports false for anything else
// (nested values, numbers, odd spacing): the caller then decodes in full.
func pathFields(raw []byte) (argPaths, bool) {
	var out argPaths
	i := 0
	space := func() {
		for i < len(raw) && (raw[i] == ' ' || raw[i] == '\n' || raw[i] == '\t' || raw[i] == '\r') {
			i++
		}
	}
	// str returns the raw JSON string starting at i, quotes included.
	str := func() ([]byte, bool) {
		if i >= len(raw) || raw[i] != '"' {
			return nil, false
		}
		start := i
		j := i + 1
		for {
			k := bytes.IndexByte(raw[j:], '"')
			if k < 0 {
				return nil, false
			}
			j += k
			bs := 0
			for b := j - 1; b > start && raw[b] == '\\'; b-- {
				bs++
			}
			j++
			if bs%2 == 0 {
				break
			}
		}
		i = j
		return raw[start:j], true
	}
	space()
	if i >= len(raw) || raw[i] != '{' {
		return out, false
	}
	i++
	for {
		space()
		if i < len(raw) && raw[i] == '}' {
			i++
			space()
			return out, i == len(raw)
		}
		key, ok := str()
		if !ok {
			return out, false
		}
		space()
		if i >= len(raw) || raw[i] != ':' {
			return out, false
		}
		i++
		space()
		val, ok := str()
		if !ok {
			return out, false
		}
		var dst *string
		switch string(key) {
		case `"path"`:
			dst = &out.Path
		case `"source"`:
			dst = &out.Source
		case `"destination"`:
			dst = &out.Destination
		}
		if dst != nil && json.Unmarshal(val, dst) != nil {
			return out, false
		}
		space()
		if i < len(raw) && raw[i] == ',' {
			i++
		}
	}
}
