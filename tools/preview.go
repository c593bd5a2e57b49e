package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/ailab/ai-lab/api"
)

// A Previewer is a tool that can say what a call would change before it runs,
// so the approval table shows it. Preview returns nil when the call changes
// nothing that exists (a new file); an error means no preview can be made (the
// call itself will say why when it runs).
type Previewer interface {
	Preview(ctx context.Context, args json.RawMessage) (*api.Preview, error)
}

// Bounds of a preview: the diff and the head of a file are for a person to read
// at a glance, not the whole file.
const (
	maxDiffLines = 400
	maxDiffBytes = 32 << 10
	headLines    = 5
	headBytes    = 400
)

// Preview says what the call would change, when the tool can tell.
func (t *fileTool[A]) Preview(ctx context.Context, raw json.RawMessage) (*api.Preview, error) {
	if t.preview == nil {
		return nil, nil
	}
	var args A
	if err := DecodeArgs(raw, &args); err != nil {
		return nil, err
	}
	return t.preview(ctx, args)
}

// previewWrite diffs an existing file against the content write_file would put
// in its place; a new file needs no preview.
func (w *Workspace) previewWrite(_ context.Context, a writeArgs) (*api.Preview, error) {
	rel, old, fi, err := w.existing(a.Path, true)
	if err != nil || fi == nil || fi.IsDir() {
		return nil, err
	}
	p := &api.Preview{Kind: api.PreviewOverwrite, Path: slash(rel), Size: fi.Size()}
	if old == nil {
		p.Summary = fmt.Sprintf("overwrites %s (%s, not text)", p.Path, humanSize(fi.Size()))
		return p, nil
	}
	diff := udiff.Unified("a/"+p.Path, "b/"+p.Path, *old, a.Content)
	for _, line := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
		case strings.HasPrefix(line, "+"):
			p.Added++
		case strings.HasPrefix(line, "-"):
			p.Removed++
		}
	}
	p.Diff, p.DiffTruncated = cutDiff(diff)
	switch {
	case p.Added == 0 && p.Removed == 0:
		p.Summary = fmt.Sprintf("overwrites %s with the same content", p.Path)
	default:
		p.Summary = fmt.Sprintf("overwrites %s (+%d −%d)", p.Path, p.Added, p.Removed)
	}
	return p, nil
}

// previewDelete says what delete_file would remove.
func (w *Workspace) previewDelete(_ context.Context, a pathArgs) (*api.Preview, error) {
	rel, old, fi, err := w.existing(a.Path, false)
	if err != nil || fi == nil {
		return nil, err
	}
	p := &api.Preview{Kind: api.PreviewDelete, Path: slash(rel), Size: fi.Size()}
	if fi.IsDir() {
		p.Size = 0
		p.Summary = fmt.Sprintf("deletes the folder %s", p.Path)
		return p, nil
	}
	p.Head = head(old)
	p.Summary = fmt.Sprintf("deletes %s (%s)", p.Path, humanSize(fi.Size()))
	return p, nil
}

// previewTransfer says what is at a move or copy's destination: the tools
// never overwrite, so the call will fail, and the table should say so before
// the user approves it.
func (w *Workspace) previewTransfer(tool string) func(context.Context, transferArgs) (*api.Preview, error) {
	return func(_ context.Context, a transferArgs) (*api.Preview, error) {
		rel, old, fi, err := w.existing(a.Destination, false)
		if err != nil || fi == nil {
			return nil, err
		}
		p := &api.Preview{Kind: api.PreviewReplace, Path: slash(rel), Size: fi.Size(), Head: head(old)}
		what := humanSize(fi.Size())
		if fi.IsDir() {
			p.Size, what = 0, "a folder"
		}
		p.Summary = fmt.Sprintf("%s already exists (%s); %s never overwrites, so this call will fail", p.Path, what, tool)
		return p, nil
	}
}

// existing resolves a path and, when it names an existing file, returns its
// info and, for a text file under MaxReadBytes, its content (nil otherwise).
// A missing path is (rel, nil, nil, nil).
func (w *Workspace) existing(p string, follow bool) (rel string, content *string, fi fs.FileInfo, err error) {
	_, rel, err = w.locate(p, follow)
	if err != nil {
		return "", nil, nil, err
	}
	// Resolved as the tool resolves it: a link the call acts on itself is
	// shown as a link, never as the file it points to.
	fi, err = w.root.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return rel, nil, nil, nil
	}
	if err != nil {
		return "", nil, nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > MaxReadBytes {
		return rel, nil, fi, nil
	}
	f, err := w.open(rel, os.O_RDONLY, 0)
	if err == nil {
		// The opened file, checked again: a hard link swapped in since the
		// Lstat must not be read into a preview the tool would refuse.
		// Nor is a FIFO swapped in read (it may never end): no preview.
		var ofi fs.FileInfo
		if ofi, err = f.Stat(); err == nil && checkLinks("path", p, ofi, fixCopyIn) != nil {
			f.Close()
			return "", nil, nil, checkLinks("path", p, ofi, fixCopyIn)
		}
		if err == nil && !ofi.Mode().IsRegular() {
			f.Close()
			return rel, nil, fi, nil
		}
	}
	if err != nil {
		return rel, nil, fi, nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxReadBytes+1))
	if err != nil || len(data) > MaxReadBytes || isBinary(string(data)) {
		return rel, nil, fi, nil
	}
	s := string(data)
	return rel, &s, fi, nil
}

// head is the first lines of a text, bounded; "" for none.
func head(text *string) string {
	if text == nil {
		return ""
	}
	lines := strings.SplitAfterN(*text, "\n", headLines+1)
	if len(lines) > headLines {
		lines = lines[:headLines]
	}
	h := strings.Join(lines, "")
	if len(h) > headBytes {
		h = h[:headBytes]
		for !utf8.ValidString(h) {
			h = h[:len(h)-1]
		}
	}
	return strings.TrimRight(h, "\n")
}

// cutDiff bounds a diff to maxDiffLines lines and maxDiffBytes bytes.
func cutDiff(diff string) (string, bool) {
	lines := strings.SplitAfter(diff, "\n")
	cut := false
	if len(lines) > maxDiffLines {
		lines, cut = lines[:maxDiffLines], true
	}
	out := strings.Join(lines, "")
	if len(out) > maxDiffBytes {
		out, cut = out[:maxDiffBytes], true
		for !utf8.ValidString(out) {
			out = out[:len(out)-1]
		}
	}
	return out, cut
}
