package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/tools"
	"gopkg.in/yaml.v3"
)

// WriteSafety sets the safety preset in the config file at path, in place. Only
// safety.preset changes, and for custom also safety.approval_mode (when
// u.ApprovalMode is set) and safety.tools_requiring_approval (when
// u.ToolsRequiringApproval is non-nil); for the fixed presets those two fields of u
// are ignored. Comments, key order and every other key are kept: the change is made
// on the yaml.v3 node tree and, where the old value's text can be located exactly,
// spliced into the original bytes so the rest of the file stays byte-for-byte the
// same. The result must load on its own, and is written atomically with the file's
// mode kept. Bad input is an *Error.
func WriteSafety(path string, u api.SafetyUpdate) error {
	if reason := checkPreset(u.Preset); reason != "" {
		return &Error{Key: "safety.preset", Value: u.Preset, Reason: reason}
	}
	custom := u.Preset == tools.PresetCustom
	if custom {
		if bad, reason := checkTools(u.ToolsRequiringApproval); reason != "" {
			return &Error{Key: "safety.tools_requiring_approval", Value: bad, Reason: reason}
		}
	}
	if path == "" {
		return &Error{Reason: "there is no config file to write (pass --config PATH or create ./" + FileName + ")"}
	}
	// Writing through a symlink keeps the link and changes the file it points at.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	info, err := os.Stat(path)
	if err != nil {
		return &Error{Path: path, Reason: fmt.Sprintf("cannot be read (%v)", unwrapPathError(err))}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return &Error{Path: path, Reason: fmt.Sprintf("cannot be read (%v)", unwrapPathError(err))}
	}

	ed, err := newSafetyEdit(data)
	if err != nil {
		return &Error{Path: path, Reason: "is not valid YAML (" + oneLine(err.Error()) + ")"}
	}
	ed.setScalar("preset", "!!str", u.Preset)
	if custom {
		if u.ApprovalMode != nil {
			ed.setScalar("approval_mode", "!!bool", fmt.Sprint(*u.ApprovalMode))
		}
		if u.ToolsRequiringApproval != nil {
			ed.setList("tools_requiring_approval", u.ToolsRequiringApproval)
		}
	}
	out, err := ed.bytes()
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if _, err := load(out, path, false); err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			ce.Reason += " (fix this first; the preset was not changed)"
		}
		return err
	}
	if bytes.Equal(out, data) {
		return nil
	}
	return writeAtomic(path, out, info.Mode().Perm())
}

// A safetyEdit changes keys of the safety section. Each change is made on the
// node tree; splices records how to make the same change on the original text.
// When one change cannot be spliced (a missing key, a block-style list, an
// escaped string) the whole tree is encoded instead, which keeps comments and
// order but may reflow spacing.
type safetyEdit struct {
	src     []byte
	doc     *yaml.Node
	safety  *yaml.Node
	splices []splice
	reflow  bool
}

type splice struct {
	start, end int // byte offsets in src
	text       string
}

func newSafetyEdit(src []byte) (*safetyEdit, error) {
	ed := &safetyEdit{src: src, doc: &yaml.Node{}}
	if err := yaml.Unmarshal(src, ed.doc); err != nil {
		return nil, err
	}
	if ed.doc.Kind != yaml.DocumentNode || len(ed.doc.Content) == 0 {
		ed.doc = &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
		ed.reflow = true
	}
	root := ed.doc.Content[0]
	if root.Kind != yaml.MappingNode {
		if !isNull(root) {
			return nil, errors.New("the file must be a mapping of sections")
		}
		ed.doc.Content[0] = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		root = ed.doc.Content[0]
		ed.reflow = true
	}
	ed.safety = ed.child(root, "safety", func() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} })
	if ed.safety.Kind != yaml.MappingNode {
		return nil, errors.New("safety must be a mapping of keys")
	}
	return ed, nil
}

// child returns the value node of name in mapping m, adding (or replacing a null
// value with) a fresh node when there is none.
func (ed *safetyEdit) child(m *yaml.Node, name string, fresh func() *yaml.Node) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			v := m.Content[i+1]
			if isNull(v) || v.Kind == yaml.AliasNode {
				v = fresh()
				m.Content[i+1] = v
				ed.reflow = true
			}
			return v
		}
	}
	ed.reflow = true
	v := fresh()
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name}, v)
	return v
}

func (ed *safetyEdit) setScalar(name, tag, value string) {
	n := ed.child(ed.safety, name, func() *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode} })
	if n.Kind != yaml.ScalarNode {
		*n = yaml.Node{Kind: yaml.ScalarNode}
		ed.reflow = true
	}
	old := n.Value
	oldStyle := n.Style
	n.Tag, n.Value = tag, value
	if ed.reflow {
		return
	}
	var quote string
	switch oldStyle {
	case 0:
	case yaml.DoubleQuotedStyle:
		quote = `"`
	case yaml.SingleQuotedStyle:
		quote = `'`
	default:
		ed.reflow = true
		return
	}
	if strings.ContainsAny(old, `"'\`+"\n") {
		ed.reflow = true
		return
	}
	ed.addSplice(n, quote+old+quote, quote+value+quote)
}

func (ed *safetyEdit) setList(name string, items []string) {
	n := ed.child(ed.safety, name, func() *yaml.Node { return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle} })
	oldFlow := n.Kind == yaml.SequenceNode && n.Style&yaml.FlowStyle != 0
	var old []string
	for _, c := range n.Content {
		old = append(old, c.Value)
	}
	*n = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: n.Style, Line: n.Line, Column: n.Column}
	if !oldFlow {
		// A list that was written as a scalar or block style is re-emitted in flow
		// style on one line, which is how config.yaml documents it.
		n.Style = yaml.FlowStyle
		ed.reflow = true
	}
	for _, it := range items {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: it})
	}
	if ed.reflow {
		return
	}
	start, ok := ed.offset(n.Line, n.Column)
	if !ok {
		ed.reflow = true
		return
	}
	lineEnd := bytes.IndexByte(ed.src[start:], '\n')
	if lineEnd < 0 {
		lineEnd = len(ed.src) - start
	}
	end := bytes.IndexByte(ed.src[start:start+lineEnd], ']')
	if end < 0 {
		ed.reflow = true
		return
	}
	end += start + 1
	// The span must parse back to exactly the old items, or it is not the list.
	var parsed []string
	if err := yaml.Unmarshal(ed.src[start:end], &parsed); err != nil || !slices.Equal(parsed, old) {
		ed.reflow = true
		return
	}
	ed.splices = append(ed.splices, splice{start: start, end: end, text: "[" + strings.Join(items, ", ") + "]"})
}

// addSplice records replacing want (the node's old text) at the node's position.
func (ed *safetyEdit) addSplice(n *yaml.Node, want, text string) {
	start, ok := ed.offset(n.Line, n.Column)
	if !ok || !bytes.HasPrefix(ed.src[start:], []byte(want)) {
		ed.reflow = true
		return
	}
	ed.splices = append(ed.splices, splice{start: start, end: start + len(want), text: text})
}

// offset converts yaml.v3's 1-based line and character column to a byte offset.
func (ed *safetyEdit) offset(line, column int) (int, bool) {
	if line < 1 || column < 1 {
		return 0, false
	}
	pos := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(ed.src[pos:], '\n')
		if i < 0 {
			return 0, false
		}
		pos += i + 1
	}
	for c := 1; c < column; c++ {
		if pos >= len(ed.src) || ed.src[pos] == '\n' {
			return 0, false
		}
		_, size := utf8.DecodeRune(ed.src[pos:])
		pos += size
	}
	return pos, true
}

func (ed *safetyEdit) bytes() ([]byte, error) {
	if ed.reflow {
		var buf bytes.Buffer
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(ed.doc); err != nil {
			return nil, err
		}
		if err := enc.Close(); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	sort.Slice(ed.splices, func(i, j int) bool { return ed.splices[i].start > ed.splices[j].start })
	out := slices.Clone(ed.src)
	for _, s := range ed.splices {
		out = slices.Concat(out[:s.start], []byte(s.text), out[s.end:])
	}
	return out, nil
}

// writeAtomic replaces path with data through a temporary file in the same
// directory, so a reader (or the watcher) never sees a half-written config.
func writeAtomic(path string, data []byte, mode os.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err = f.Chmod(mode); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	// The rename is only durable once the directory is; best effort, because
	// the file is already in place and some filesystems refuse a directory sync.
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
