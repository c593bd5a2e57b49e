package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode"
)

// ErrOutsideWorkspace is matched (errors.Is) by every refusal of a path that
// is absolute, climbs out with "..", or goes through a symbolic link that
// leads outside the workspace.
var ErrOutsideWorkspace = errors.New("path is outside the workspace")

// ErrHardLink is matched (errors.Is) by every refusal of a regular file with
// more than one hard link. No path check can tell where a hard link's other
// names are, so such a file may be one outside the workspace; these refusals
// match ErrOutsideWorkspace too.
var ErrHardLink = errors.New("file has more than one hard link")

// A linkRefusal is a file refused for its hard links; its text is the one
// sentence the model sees.
type linkRefusal struct{ msg string }

func (e *linkRefusal) Error() string { return e.msg }
func (e *linkRefusal) Is(target error) bool {
	return target == ErrHardLink || target == ErrOutsideWorkspace
}

// checkLinks refuses fi when it is a regular file with more than one hard
// link. role and shown name it as the model did ("path notes.txt"); fix is
// what to do instead. Pass the FileInfo of the opened file (File.Stat is an
// fstat) wherever the tool reads or writes through a handle, so a link swapped
// in after an earlier check is still caught. Directories always have several
// links and symlinks are checked by resolve, so only regular files count.
func checkLinks(role, shown string, fi fs.FileInfo, fix string) error {
	if !fi.Mode().IsRegular() {
		return nil
	}
	n, known := hardLinks(fi)
	if !known || n <= 1 {
		return nil
	}
	return &linkRefusal{msg: fmt.Sprintf("%s %s has %d hard links, so it may be a file outside the workspace under another name; file tools refuse files with more than one hard link, so %s", role, shown, n, fix)}
}

// Fixes for checkLinks's refusals.
const (
	fixCopyIn   = "copy it in with cp instead of linking it"
	fixOtherDst = "choose another destination"
)

// A refusal is a path the file tools will not touch; its text is the one
// sentence the model sees.
type refusal struct{ msg string }

func (e *refusal) Error() string        { return e.msg }
func (e *refusal) Is(target error) bool { return target == ErrOutsideWorkspace }

func refuse(format string, a ...any) error { return &refusal{msg: fmt.Sprintf(format, a...)} }

// A Workspace is the one folder the file tools may see. Every access goes
// through an os.Root, which the kernel-level openat walk keeps inside the
// folder even if a symlink is swapped in mid-operation; the checks in resolve
// come first only so a refusal can say which rule the path broke.
type Workspace struct {
	dir  string
	root *os.Root
}

// OpenWorkspace opens dir as the workspace, creating it (and its parents) if
// it is missing. Close it when done.
func OpenWorkspace(dir string) (*Workspace, error) {
	if strings.TrimSpace(dir) == "" {
		return nil, errors.New("the workspace folder is empty: set tools.workspace to a folder")
	}
	// The os error repeats the path and names the system call; the person
	// reading this needs the reason and which setting to change.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the workspace folder %s (%w): set tools.workspace to a folder you can write", dir, pathReason(err))
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot open the workspace folder %s (%w): set tools.workspace to a folder you can write", dir, pathReason(err))
	}
	return &Workspace{dir: dir, root: root}, nil
}

// pathReason is the bare reason of a filesystem error, e.g. "not a directory".
func pathReason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Dir is the workspace folder as given to OpenWorkspace.
func (w *Workspace) Dir() string { return w.dir }

// Close releases the workspace's directory handle; the tools fail after it.
func (w *Workspace) Close() error { return w.root.Close() }

// resolve turns a path from the model into a clean path relative to the
// workspace root ("." for the root itself), or refuses it. The path need not
// exist. Symlinks that stay inside the workspace are allowed, as os.Root
// allows them.
func (w *Workspace) resolve(p string) (string, error) {
	if p == "" {
		return "", errors.New("the path is empty; give a path relative to the workspace, or . for the workspace itself")
	}
	// Control characters (NUL, newlines, tabs...) are refused: no sensible
	// file name holds them, and the path must print on one line in errors.
	if strings.IndexFunc(p, unicode.IsControl) >= 0 {
		return "", fmt.Errorf("path %q contains a control character; file tools take printable names only", p)
	}
	if filepath.IsAbs(p) || filepath.VolumeName(p) != "" || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) {
		return "", refuse("path %s is absolute; file tools take paths relative to the workspace", p)
	}
	rel := filepath.Clean(filepath.FromSlash(p))
	// IsLocal is the lexical test: after cleaning, no ".." may lead above the
	// root, so "a/../../x" is refused as well as "../x".
	if !filepath.IsLocal(rel) {
		return "", refuse("path %s leaves the workspace; use a path inside it", p)
	}
	if err := w.checkSymlinks(p, rel); err != nil {
		return "", err
	}
	return rel, nil
}

// checkSymlinks walks rel one component at a time and refuses it if a
// component is a symlink that cannot be followed inside the workspace
// (outside, absolute, dangling out of it, or a loop). It stops at the first
// missing component: what does not exist yet leads nowhere.
func (w *Workspace) checkSymlinks(shown, rel string) error {
	if rel == "." {
		return nil
	}
	parts := strings.Split(rel, string(filepath.Separator))
	for i := range parts {
		prefix := filepath.Join(parts[:i+1]...)
		fi, err := w.root.Lstat(prefix)
		if err != nil {
			// Missing, or a file used as a directory: the operation itself
			// reports that in its own words.
			return nil
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		_, err = w.root.Stat(prefix)
		switch {
		case err == nil || errors.Is(err, fs.ErrNotExist):
			// Leads inside (or to a missing entry inside, which os.Root
			// would create inside): allowed.
		case errors.Is(err, syscall.ELOOP):
			return refuse("path %s goes through a symbolic link loop at %s; remove or fix the link", shown, filepath.ToSlash(prefix))
		default:
			return refuse("path %s goes through a symbolic link (%s) that points outside the workspace", shown, filepath.ToSlash(prefix))
		}
	}
	return nil
}

// escapes reports whether err is os.Root's refusal of a path that leads
// outside. The error value is unexported in package os, so its text is the
// only handle; resolve catches these cases first, so this only matters when a
// symlink changes between the check and the operation.
func escapes(err error) bool {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error() == "path escapes from parent"
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error() == "path escapes from parent"
	}
	return false
}

// opError turns the error of a filesystem operation on the path shown into
// one sentence for the model. It keeps the workspace's host path out of the
// message: the model only knows workspace-relative paths.
func opError(verb, shown string, err error) error {
	var inner error = err
	var pe *fs.PathError
	var le *os.LinkError
	if errors.As(err, &pe) {
		inner = pe.Err
	} else if errors.As(err, &le) {
		inner = le.Err
	}
	switch {
	case escapes(err):
		return refuse("path %s goes through a symbolic link that points outside the workspace", shown)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("no such file or directory: %s; use list_directory to see what is there", shown)
	case errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("cannot %s %s: a part of the path is a file, not a directory", verb, shown)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("cannot %s %s: permission denied", verb, shown)
	case errors.Is(err, syscall.ELOOP):
		return fmt.Errorf("cannot %s %s: too many symbolic links", verb, shown)
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("cannot %s %s: the disk is full", verb, shown)
	}
	return fmt.Errorf("cannot %s %s: %v", verb, shown, inner)
}

// maxLinks bounds the symbolic links followed in one path, as the kernel's
// ELOOP does.
const maxLinks = 40

// Canonical is the workspace path a file tool will really touch for p: p
// checked as resolve checks it, then every symbolic link on the way followed
// inside the workspace (the last component too when follow is set, as
// reading, writing, copying from and listing do; not for delete_file and
// move_file's source, which act on the link itself). It is slash-separated,
// "." for the workspace itself, and refused (an error the tool would give)
// for a path outside the workspace, through a link that leads out, or to a
// regular file with more than one hard link. The tools operate on it and the
// approval policy matches rules and grants against it, so the two cannot
// disagree about which file a call touches.
func (w *Workspace) Canonical(p string, follow bool) (string, error) {
	_, real, err := w.locate(p, follow)
	return slash(real), err
}

// locate is Canonical for the tools: the lexically cleaned path (what results
// show, as the model named it) and the real path to operate on.
func (w *Workspace) locate(p string, follow bool) (rel, real string, err error) {
	return w.locateAs("path", fixCopyIn, p, follow)
}

// locateAs is locate with a refusal that names the argument (role, as the
// model named it: "source") and says what to do instead (fix).
func (w *Workspace) locateAs(role, fix, p string, follow bool) (rel, real string, err error) {
	if rel, err = w.resolve(p); err != nil {
		return "", "", err
	}
	if real, err = w.realPath(p, rel, follow); err != nil {
		return "", "", err
	}
	if fi, err := w.root.Lstat(real); err == nil {
		if err := checkLinks(role, p, fi, fix); err != nil {
			return "", "", err
		}
	}
	return rel, real, nil
}

// realPath follows the symbolic links of rel, a path resolve accepted, one
// component at a time through the workspace's os.Root, and returns the path
// they lead to. What does not exist yet is kept as written: it leads nowhere.
// It is written here because filepath.EvalSymlinks works on host paths
// (where the workspace itself may sit behind links) and needs every component
// to exist, while a write creates what is missing.
func (w *Workspace) realPath(shown, rel string, follow bool) (string, error) {
	if rel == "." {
		return ".", nil
	}
	sep := string(filepath.Separator)
	todo := strings.Split(rel, sep)
	var done []string
	links := 0
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return "", refuse("path %s goes through a symbolic link that points outside the workspace", shown)
			}
			done = done[:len(done)-1]
			continue
		}
		cur := filepath.Join(append(done, name)...)
		fi, err := w.root.Lstat(cur)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 || (len(todo) == 0 && !follow) {
			if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				return "", opError("use", shown, err)
			}
			done = append(done, name)
			if err != nil {
				// Missing: the rest is only a name, cleaned as written.
				rest := filepath.Clean(filepath.Join(append(done, todo...)...))
				if !filepath.IsLocal(rest) {
					return "", refuse("path %s leaves the workspace; use a path inside it", shown)
				}
				return rest, nil
			}
			continue
		}
		if links++; links > maxLinks {
			return "", refuse("path %s goes through a symbolic link loop at %s; remove or fix the link", shown, slash(cur))
		}
		target, err := w.root.Readlink(cur)
		if err != nil {
			return "", opError("use", shown, err)
		}
		if filepath.IsAbs(target) || filepath.VolumeName(target) != "" {
			return "", refuse("path %s goes through a symbolic link (%s) that points outside the workspace", shown, slash(cur))
		}
		todo = append(strings.Split(filepath.Clean(target), sep), todo...)
	}
	if len(done) == 0 {
		return ".", nil
	}
	return filepath.Join(done...), nil
}
