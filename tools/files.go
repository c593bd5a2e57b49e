package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ailab/ai-lab/api"
)

// MaxReadBytes is the largest file read_file returns: a bigger one would
// crowd everything else out of the model's context.
const MaxReadBytes = 1 << 20

// MaxListEntries is the most entries list_directory returns; the result then
// says it was truncated and how many entries there are.
const MaxListEntries = 500

// FileTools returns the seven file tools (read_file, write_file, delete_file,
// move_file, copy_file, create_directory, list_directory), all confined to ws.
// Pass them to NewRegistry together with the web tools. The tools share ws,
// which is safe for concurrent use; closing it disables them.
func FileTools(ws *Workspace) []Tool {
	return []Tool{
		newFileTool(ReadFile,
			"Read a UTF-8 text file in the workspace and return its content. Binary files and files over 1 MiB are refused.",
			objectSchema([]string{"path"}, map[string]any{"path": pathProp("File to read, relative to the workspace.")}),
			ws.readFile).withLocate(ws.locatePath(true)),
		newFileTool(WriteFile,
			"Write text to a file in the workspace, creating it and any missing parent folders, or replacing its content if it exists.",
			objectSchema([]string{"path", "content"}, map[string]any{
				"path":    pathProp("File to write, relative to the workspace."),
				"content": map[string]any{"type": "string", "description": "The full text the file should hold."},
			}),
			ws.writeFile).withPreview(ws.previewWrite).withLocate(func(a writeArgs) (Object, error) { return ws.object(true, a.Path) }).
			withChanges(ws, func(a writeArgs) (Changes, error) { return changesOf(ws.object(true, a.Path)) }),
		newFileTool(DeleteFile,
			"Delete one file in the workspace. Folders are not deleted.",
			objectSchema([]string{"path"}, map[string]any{"path": pathProp("File to delete, relative to the workspace.")}),
			ws.deleteFile).withPreview(ws.previewDelete).withLocate(ws.locatePath(false)).
			withChanges(ws, func(a pathArgs) (Changes, error) { return changesOf(ws.object(false, a.Path)) }),
		newFileTool(MoveFile,
			"Move or rename a file or folder inside the workspace. Missing parent folders of the destination are created; an existing destination is never overwritten.",
			transferSchema("File or folder to move, relative to the workspace.", "Its new path, relative to the workspace (the full path, not only the folder)."),
			ws.moveFile).withPreview(ws.previewTransfer(MoveFile)).withLocate(ws.locateTransfer(false)).
			withChanges(ws, func(a transferArgs) (Changes, error) {
				c, err := changesOf(ws.locateTransfer(false)(a))
				c.Move = true
				return c, err
			}),
		newFileTool(CopyFile,
			"Copy one file to a new path inside the workspace. Missing parent folders of the destination are created; an existing destination is never overwritten.",
			transferSchema("File to copy, relative to the workspace.", "Path of the copy, relative to the workspace (the full path, not only the folder)."),
			ws.copyFile).withPreview(ws.previewTransfer(CopyFile)).withLocate(ws.locateTransfer(true)).
			withChanges(ws, func(a transferArgs) (Changes, error) {
				c, err := changesOf(ws.locateTransfer(true)(a))
				c.Reads = 1
				return c, err
			}),
		newFileTool(CreateDirectory,
			"Create a folder in the workspace, with any missing parent folders. Succeeds if it already exists.",
			objectSchema([]string{"path"}, map[string]any{"path": pathProp("Folder to create, relative to the workspace.")}),
			ws.createDirectory).withLocate(ws.locatePath(true)).
			withChanges(ws, func(a pathArgs) (Changes, error) { return changesOf(ws.object(true, a.Path)) }),
		newFileTool(ListDirectory,
			fmt.Sprintf("List a folder of the workspace: each entry's name, type (file, dir, symlink) and size, sorted by name, at most %d entries.", MaxListEntries),
			objectSchema(nil, map[string]any{"path": pathProp("Folder to list, relative to the workspace; . (the default) is the workspace itself.")}),
			ws.listDirectory).withLocate(func(a listArgs) (Object, error) { return ws.object(true, listed(a.Path)) }),
	}
}

// A fileTool adapts a typed run function to the Tool interface: it decodes
// the model's arguments strictly, then runs.
type fileTool[A any] struct {
	name, description string
	params            map[string]any
	run               func(context.Context, A) (any, error)
	preview           func(context.Context, A) (*api.Preview, error) // nil: the tool changes nothing to preview
	locate            func(A) (Object, error)                        // what a call acts on (Locator)
	// ws and changes say what a call may change (Changer); nil for tools
	// that change nothing.
	ws      *Workspace
	changes func(A) (Changes, error)
}

var (
	_ Tool      = (*fileTool[pathArgs])(nil)
	_ Previewer = (*fileTool[pathArgs])(nil)
	_ Locator   = (*fileTool[pathArgs])(nil)
	_ Changer   = (*fileTool[pathArgs])(nil)
)

func newFileTool[A any](name, description string, params map[string]any, run func(context.Context, A) (any, error)) *fileTool[A] {
	return &fileTool[A]{name: name, description: description, params: params, run: run}
}

// withLocate gives the tool the resolution of what a call acts on.
func (t *fileTool[A]) withLocate(l func(A) (Object, error)) *fileTool[A] {
	t.locate = l
	return t
}

// withPreview gives the tool a preview of what a call would change.
func (t *fileTool[A]) withPreview(p func(context.Context, A) (*api.Preview, error)) *fileTool[A] {
	t.preview = p
	return t
}

func (t *fileTool[A]) Name() string               { return t.name }
func (t *fileTool[A]) Description() string        { return t.description }
func (t *fileTool[A]) Parameters() map[string]any { return t.params }

func (t *fileTool[A]) Run(ctx context.Context, raw json.RawMessage) (any, error) {
	var args A
	if err := DecodeArgs(raw, &args); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s was cancelled before it ran: %v", t.name, err)
	}
	return t.run(ctx, args)
}

func objectSchema(required []string, props map[string]any) map[string]any {
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if required == nil {
		required = []string{}
	}
	s["required"] = required
	return s
}

func pathProp(desc string) map[string]any {
	return map[string]any{"type": "string", "description": desc}
}

func transferSchema(source, destination string) map[string]any {
	return objectSchema([]string{"source", "destination"}, map[string]any{
		"source":      pathProp(source),
		"destination": pathProp(destination),
	})
}

type pathArgs struct {
	Path string `json:"path" arg:"required"`
}

type writeArgs struct {
	Path    string `json:"path" arg:"required"`
	Content string `json:"content" arg:"required,empty"`
}

type transferArgs struct {
	Source      string `json:"source" arg:"required"`
	Destination string `json:"destination" arg:"required"`
}

type listArgs struct {
	Path string `json:"path"`
}

// ReadFileResult is what read_file returns.
type ReadFileResult struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	Size    int64  `json:"size"`
}

// WriteFileResult is what write_file returns.
type WriteFileResult struct {
	Path         string `json:"path"`
	BytesWritten int    `json:"bytes_written"`
	Overwritten  bool   `json:"overwritten"`
}

// DeleteFileResult is what delete_file returns.
type DeleteFileResult struct {
	Path    string `json:"path"`
	Deleted bool   `json:"deleted"`
}

// MoveFileResult is what move_file returns.
type MoveFileResult struct {
	Source      string `json:"source"`
	Destination string `json:"destination"`
}

// CopyFileResult is what copy_file returns.
type CopyFileResult struct {
	Source      string `json:"source"`
	Destination string `json:"destination"`
	BytesCopied int64  `json:"bytes_copied"`
}

// CreateDirectoryResult is what create_directory returns; Created is false
// when the folder already existed.
type CreateDirectoryResult struct {
	Path    string `json:"path"`
	Created bool   `json:"created"`
}

// ListDirectoryResult is what list_directory returns. Total counts every
// entry; Entries holds at most MaxListEntries of them.
type ListDirectoryResult struct {
	Path      string     `json:"path"`
	Entries   []DirEntry `json:"entries"`
	Total     int        `json:"total"`
	Truncated bool       `json:"truncated"`
	Note      string     `json:"note,omitempty"`
}

// A DirEntry is one entry of a listing. Type is "file", "dir", "symlink" or
// "other"; Size is the byte size of files and symlinks, 0 for the rest.
type DirEntry struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Size int64  `json:"size"`
}

func slash(rel string) string { return filepath.ToSlash(rel) }

// shownPath is a path the tools accepted as results show it: cleaned, as the
// model named it, before any link is followed.
func shownPath(p string) string { return slash(filepath.Clean(filepath.FromSlash(p))) }

func (w *Workspace) readFile(_ context.Context, a pathArgs) (any, error) {
	shownRel, rel, err := w.locate(a.Path, true)
	if err != nil {
		return nil, err
	}
	// Stat before opening: opening a FIFO would block the tool forever.
	fi, err := w.root.Stat(rel)
	if err != nil {
		return nil, opError("read", a.Path, err)
	}
	switch {
	case fi.IsDir():
		return nil, fmt.Errorf("path %s is a directory; use list_directory to see what it holds", a.Path)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("path %s is not a regular file; read_file reads text files only", a.Path)
	case fi.Size() > MaxReadBytes:
		return nil, tooBig(a.Path, fi.Size())
	}
	f, err := w.open(rel, os.O_RDONLY, 0)
	if err != nil {
		return nil, opError("read", a.Path, err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, opError("read", a.Path, err)
	}
	if !fi.Mode().IsRegular() { // swapped since the Stat above
		return nil, fmt.Errorf("path %s is not a regular file; read_file reads text files only", a.Path)
	}
	if err := checkLinks("path", a.Path, fi, fixCopyIn); err != nil {
		return nil, err
	}
	// A Builder sized from the Stat becomes the result string without the
	// copies io.ReadAll plus a conversion would make.
	var sb strings.Builder
	sb.Grow(int(fi.Size()) + 1)
	if _, err := io.Copy(&sb, io.LimitReader(f, MaxReadBytes+1)); err != nil {
		return nil, opError("read", a.Path, err)
	}
	data := sb.String()
	if len(data) > MaxReadBytes { // it grew after the Stat
		return nil, tooBig(a.Path, int64(len(data)))
	}
	if isBinary(data) {
		return nil, fmt.Errorf("path %s is a binary file; read_file reads text only", a.Path)
	}
	return ReadFileResult{Path: slash(shownRel), Content: data, Size: int64(len(data))}, nil
}

func tooBig(shown string, size int64) error {
	return fmt.Errorf("path %s is %s (%d bytes), over read_file's limit of 1 MiB (%d bytes); it cannot be read whole", shown, humanSize(size), size, MaxReadBytes)
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n == 1:
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// isBinary reports whether data is not UTF-8 text: a NUL byte or an invalid
// UTF-8 sequence anywhere. The whole file is checked, not a prefix, because
// the content must survive as a JSON string (invalid bytes would be silently
// replaced) and the file is at most 1 MiB.
func isBinary(data string) bool {
	return strings.IndexByte(data, 0) >= 0 || !utf8.ValidString(data)
}

func (w *Workspace) writeFile(_ context.Context, a writeArgs) (any, error) {
	shownRel, rel, err := w.locate(a.Path, true)
	if err != nil {
		return nil, err
	}
	if rel == "." {
		return nil, errors.New("path . is the workspace itself; give the path of a file to write")
	}
	overwritten := false
	if fi, err := w.root.Stat(rel); err == nil {
		switch {
		case fi.IsDir():
			return nil, fmt.Errorf("path %s is a directory; write_file writes files only", a.Path)
		case !fi.Mode().IsRegular():
			return nil, fmt.Errorf("path %s is not a regular file; write_file writes regular files only", a.Path)
		}
		overwritten = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, opError("write", a.Path, err)
	}
	if err := w.mkdirParent(rel, a.Path); err != nil {
		return nil, err
	}
	// No O_TRUNC: the opened file's links are checked first, and truncating
	// a hard link would already have emptied the file behind it.
	f, err := w.open(rel, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, opError("write", a.Path, err)
	}
	n, err := writeChecked(f, a.Path, a.Content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	var lr *linkRefusal
	if errors.As(err, &lr) {
		return nil, err
	}
	if err != nil {
		return nil, opError("write", a.Path, err)
	}
	return WriteFileResult{Path: slash(shownRel), BytesWritten: n, Overwritten: overwritten}, nil
}

// writeChecked replaces the content of f, opened for writing at the path
// shown, once its fstat shows a regular file with one link.
func writeChecked(f *os.File, shown, content string) (int, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if !fi.Mode().IsRegular() { // swapped in since writeFile's Stat
		return 0, fmt.Errorf("path %s is not a regular file; write_file writes regular files only", shown)
	}
	if err := checkLinks("path", shown, fi, fixCopyIn); err != nil {
		return 0, err
	}
	// The content is written over the old from the start (the file was just
	// opened, so its offset is 0) and the file is then cut to its length.
	// Cutting it to nothing first and writing after costs much more on ext4:
	// a file truncated to zero is taken for one being replaced
	// (auto_da_alloc), and closing it starts writing it back to disk: some
	// 180 µs more an overwrite (BenchmarkWriteFileOverwrite). Neither order
	// syncs: what a power cut leaves of a file being written is
	// not promised either way, and undo keeps the content from before.
	// A file no longer than what was written is covered by it: cutting it to
	// the length it already has would still cost ext4 an inode update. A
	// write that failed part way is cut after what it wrote, as before, so
	// no old tail is left behind a new head.
	n, err := f.WriteString(content)
	if fi.Size() > int64(n) {
		if terr := f.Truncate(int64(n)); err == nil {
			err = terr
		}
	}
	return n, err
}

// open opens rel inside the workspace without waiting (see nonblock).
func (w *Workspace) open(rel string, flag int, perm fs.FileMode) (*os.File, error) {
	return w.root.OpenFile(rel, flag|nonblock, perm)
}

// mkdirParent creates the missing folders above rel.
func (w *Workspace) mkdirParent(rel, shown string) error {
	dir := filepath.Dir(rel)
	if dir == "." {
		return nil
	}
	if err := w.root.MkdirAll(dir, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) || errors.Is(err, fs.ErrInvalid) {
			return fmt.Errorf("cannot create the folders of %s: a part of the path is a file, not a folder", shown)
		}
		return opError("create the folders of", shown, err)
	}
	return nil
}

func (w *Workspace) deleteFile(_ context.Context, a pathArgs) (any, error) {
	shownRel, rel, err := w.locate(a.Path, false)
	if err != nil {
		return nil, err
	}
	// Lstat: a symlink is deleted itself, never what it points to.
	fi, err := w.root.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("no such file: %s; use list_directory to see what is there", a.Path)
	case err != nil:
		return nil, opError("delete", a.Path, err)
	case fi.IsDir():
		return nil, fmt.Errorf("path %s is a directory; delete_file deletes files only", a.Path)
	}
	// Lstat is enough here: removing a name never changes the file behind
	// it, so a link swapped in after this check loses nothing but that name.
	if err := checkLinks("path", a.Path, fi, fixCopyIn); err != nil {
		return nil, err
	}
	if err := w.root.Remove(rel); err != nil {
		return nil, opError("delete", a.Path, err)
	}
	return DeleteFileResult{Path: slash(shownRel), Deleted: true}, nil
}

// transferEnds resolves both ends of a move or copy and checks the
// destination is free: neither tool overwrites, because replacing a file the
// user did not name as a target is a surprise nobody approved.
func (w *Workspace) transferEnds(tool string, a transferArgs) (src, dst string, srcInfo fs.FileInfo, err error) {
	if _, src, err = w.locateAs("source", fixCopyIn, a.Source, tool == CopyFile); err != nil {
		return "", "", nil, err
	}
	if _, dst, err = w.locateAs("destination", fixOtherDst, a.Destination, false); err != nil {
		return "", "", nil, err
	}
	if src == "." {
		return "", "", nil, fmt.Errorf("source . is the workspace itself; %s takes a file inside it", tool)
	}
	if dst == "." {
		return "", "", nil, fmt.Errorf("destination . is the workspace itself; give the full new path, e.g. %s", slash(filepath.Base(src)))
	}
	srcInfo, err = w.root.Lstat(src)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", nil, fmt.Errorf("no such file: %s; use list_directory to see what is there", a.Source)
	} else if err != nil {
		return "", "", nil, opError(strings.TrimSuffix(tool, "_file"), a.Source, err)
	}
	// A rename moves a name, not content, so for move_file a check of this
	// Lstat is enough; copy_file checks its opened source again.
	if err := checkLinks("source", a.Source, srcInfo, fixCopyIn); err != nil {
		return "", "", nil, err
	}
	dfi, err := w.root.Lstat(dst)
	switch {
	case err == nil && dfi.IsDir():
		return "", "", nil, fmt.Errorf("destination %s is an existing directory; give the full new path, e.g. %s", a.Destination, slash(filepath.Join(dst, filepath.Base(src))))
	case err == nil:
		// Telling the model to delete a file delete_file would refuse helps nobody.
		if err := checkLinks("destination", a.Destination, dfi, fixOtherDst); err != nil {
			return "", "", nil, err
		}
		return "", "", nil, fmt.Errorf("destination %s already exists; %s does not overwrite, so delete it first or choose another name", a.Destination, tool)
	case !errors.Is(err, fs.ErrNotExist):
		return "", "", nil, opError("use", a.Destination, err)
	}
	return src, dst, srcInfo, nil
}

func (w *Workspace) moveFile(_ context.Context, a transferArgs) (any, error) {
	src, dst, fi, err := w.transferEnds(MoveFile, a)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() && strings.HasPrefix(dst, src+string(filepath.Separator)) {
		return nil, fmt.Errorf("cannot move directory %s into itself", a.Source)
	}
	if err := w.mkdirParent(dst, a.Destination); err != nil {
		return nil, err
	}
	// Rename would replace a destination created since transferEnds looked;
	// os.Root offers no no-replace rename, and that window is only as wide as
	// two system calls inside the user's own folder.
	if err := w.root.Rename(src, dst); err != nil {
		return nil, opError("move", a.Source, err)
	}
	return MoveFileResult{Source: shownPath(a.Source), Destination: shownPath(a.Destination)}, nil
}

func (w *Workspace) copyFile(ctx context.Context, a transferArgs) (any, error) {
	src, dst, _, err := w.transferEnds(CopyFile, a)
	if err != nil {
		return nil, err
	}
	// Stat, not the Lstat of transferEnds: copying a symlink copies the file
	// it points to (inside the workspace, as resolve checked).
	fi, err := w.root.Stat(src)
	switch {
	case err != nil:
		return nil, opError("copy", a.Source, err)
	case fi.IsDir():
		return nil, fmt.Errorf("source %s is a directory; copy_file copies files only", a.Source)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("source %s is not a regular file; copy_file copies regular files only", a.Source)
	}
	in, err := w.open(src, os.O_RDONLY, 0)
	if err != nil {
		return nil, opError("copy", a.Source, err)
	}
	defer in.Close()
	// The opened file, which through a symlink inside the workspace is not
	// the one transferEnds looked at, and may have been swapped since.
	if fi, err = in.Stat(); err != nil {
		return nil, opError("copy", a.Source, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("source %s is not a regular file; copy_file copies regular files only", a.Source)
	}
	if err := checkLinks("source", a.Source, fi, fixCopyIn); err != nil {
		return nil, err
	}
	if err := w.mkdirParent(dst, a.Destination); err != nil {
		return nil, err
	}
	// O_EXCL makes "never overwrite" hold even against a file that appeared
	// since transferEnds looked.
	out, err := w.open(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("destination %s already exists; copy_file does not overwrite, so delete it first or choose another name", a.Destination)
	} else if err != nil {
		return nil, opError("create", a.Destination, err)
	}
	n, err := io.Copy(out, ctxReader{ctx, in})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = w.root.Remove(dst) // leave no half copy behind
		if ctx.Err() != nil {
			return nil, fmt.Errorf("copy of %s was cancelled: %v", a.Source, ctx.Err())
		}
		return nil, opError("copy", a.Source, err)
	}
	return CopyFileResult{Source: shownPath(a.Source), Destination: shownPath(a.Destination), BytesCopied: n}, nil
}

// ctxReader stops a long copy when the request is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

func (w *Workspace) createDirectory(_ context.Context, a pathArgs) (any, error) {
	shownRel, rel, err := w.locate(a.Path, true)
	if err != nil {
		return nil, err
	}
	fi, err := w.root.Stat(rel)
	switch {
	case err == nil && fi.IsDir():
		return CreateDirectoryResult{Path: slash(shownRel), Created: false}, nil
	case err == nil:
		return nil, fmt.Errorf("path %s already exists and is a file, not a directory", a.Path)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, opError("create", a.Path, err)
	}
	if err := w.root.MkdirAll(rel, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) || errors.Is(err, fs.ErrInvalid) {
			return nil, fmt.Errorf("cannot create directory %s: a part of the path is a file, not a directory", a.Path)
		}
		return nil, opError("create directory", a.Path, err)
	}
	return CreateDirectoryResult{Path: slash(shownRel), Created: true}, nil
}

func (w *Workspace) listDirectory(_ context.Context, a listArgs) (any, error) {
	shown := listed(a.Path)
	shownRel, rel, err := w.locate(shown, true)
	if err != nil {
		return nil, err
	}
	fi, err := w.root.Stat(rel)
	if err != nil {
		return nil, opError("list", shown, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("path %s is a file, not a directory; use read_file to read it", shown)
	}
	// A root for the listed folder itself: each entry is then one fstatat
	// on its descriptor, not a walk from the workspace root.
	dir, err := w.root.OpenRoot(rel)
	if err != nil {
		return nil, opError("list", shown, err)
	}
	defer dir.Close()
	d, err := dir.Open(".")
	if err != nil {
		return nil, opError("list", shown, err)
	}
	defer d.Close()
	// Names only, then Lstat of the shown ones: File.ReadDir on a directory
	// opened through os.Root stats every entry, which a 100,000-entry folder
	// would pay for in full to show 500.
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, opError("list", shown, err)
	}
	slices.Sort(names)
	res := ListDirectoryResult{Path: slash(shownRel), Total: len(names), Entries: make([]DirEntry, 0, min(len(names), MaxListEntries))}
	if len(names) > MaxListEntries {
		names = names[:MaxListEntries]
		res.Truncated = true
		res.Note = fmt.Sprintf("showing the first %d of %d entries by name; list a subfolder to narrow it down", MaxListEntries, res.Total)
	}
	for _, name := range names {
		e := DirEntry{Name: name, Type: "other"}
		li, err := dir.Lstat(name)
		if err != nil {
			continue // removed while we listed
		}
		switch m := li.Mode(); {
		case m.IsRegular():
			e.Type, e.Size = "file", li.Size()
		case m.IsDir():
			e.Type = "dir"
		case m&fs.ModeSymlink != 0:
			e.Type, e.Size = "symlink", li.Size()
		}
		res.Entries = append(res.Entries, e)
	}
	return res, nil
}

// listed is the folder list_directory lists for the path given: the
// workspace itself for none.
func listed(p string) string {
	if strings.TrimSpace(p) == "" {
		return "."
	}
	return p
}

// object is the Object of a file tool's call on paths, each resolved as
// Canonical resolves it (the last component followed when follow is set).
func (w *Workspace) object(follow bool, paths ...string) (Object, error) {
	return w.objectAs("path", fixCopyIn, follow, paths...)
}

// objectAs is object with refusals worded for the argument role.
func (w *Workspace) objectAs(role, fix string, follow bool, paths ...string) (Object, error) {
	o := Object{Kind: ObjectPath, Given: paths}
	for _, p := range paths {
		_, c, err := w.locateAs(role, fix, p, follow)
		if err != nil {
			return o, err
		}
		o.Paths = append(o.Paths, slash(c))
	}
	return o, nil
}

// locatePath is the locator of a tool with one path argument.
func (w *Workspace) locatePath(follow bool) func(pathArgs) (Object, error) {
	return func(a pathArgs) (Object, error) { return w.object(follow, a.Path) }
}

// locateTransfer is the locator of move_file (follow false: a link is moved
// itself) and copy_file (true: a link's file is copied); the destination is a
// new name, never followed.
func (w *Workspace) locateTransfer(followSource bool) func(transferArgs) (Object, error) {
	return func(a transferArgs) (Object, error) {
		src, err := w.objectAs("source", fixCopyIn, followSource, a.Source)
		if err != nil {
			return src, err
		}
		dst, err := w.objectAs("destination", fixOtherDst, false, a.Destination)
		if err != nil {
			return dst, err
		}
		src.Paths, src.Given = append(src.Paths, dst.Paths...), append(src.Given, a.Destination)
		return src, nil
	}
}
