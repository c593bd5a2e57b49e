package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
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
	writeMu.Lock()
	defer writeMu.Unlock()
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

// writeMu keeps two rewrites of a config file by this process (two rules
// saved at the same moment, say) from reading the same old file and the
// second from undoing the first.
var writeMu sync.Mutex

// ErrLocked is matched (errors.Is) by AddRule's refusal while an AILAB_SAFETY_*
// variable is set: the environment then overrides config.yaml's safety
// settings, so a change written to the file would not be what is in force.
var ErrLocked = errors.New("the safety settings are locked by the environment")

// SafetyLockedBy returns the first AILAB_SAFETY_* variable (in key order:
// AILAB_SAFETY_PRESET, AILAB_SAFETY_APPROVAL_MODE,
// AILAB_SAFETY_TOOLS_REQUIRING_APPROVAL, AILAB_SAFETY_RULES) that is set to a
// non-empty value, or "" when none is, in which case config.yaml says what is
// in force.
func SafetyLockedBy() string {
	for _, k := range keyTable {
		if k.section == "safety" && os.Getenv(k.envName()) != "" {
			return k.envName()
		}
	}
	return ""
}

// AddRule appends r to safety.rules in the config file at path, in place. r is
// checked and canonicalized as Load would (its Line is ignored); a rule that
// says the same as one already in the file is not added twice, and that is no
// error. Comments and every other line are kept: the rule is spliced into the
// original bytes as one line, - {allow: write_file, path: "notes/"}, creating
// rules: under safety: (and safety:) when missing; only a file whose layout
// cannot be spliced (a flow-style safety mapping, say) is re-encoded from its
// node tree, which keeps comments and order but may reflow spacing. The result
// must load on its own, and is written atomically with the file's mode kept.
// It refuses with an error wrapping ErrLocked while SafetyLockedBy names a
// variable, and with an *Error for a bad rule or a file that does not load.
func AddRule(path string, r Rule) error {
	if env := SafetyLockedBy(); env != "" {
		return fmt.Errorf("%w: %s is set in the server's environment and overrides config.yaml, so a rule added to the file would not be in force", ErrLocked, env)
	}
	if path == "" {
		return &Error{Reason: "there is no config file to write (pass --config PATH or create ./" + FileName + ")"}
	}
	writeMu.Lock()
	defer writeMu.Unlock()
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
	cur, err := load(data, path, false)
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			ce.Reason += " (fix this first; the rule was not added)"
		}
		return err
	}
	rule, cerr := checkNewRule(r, cur)
	if cerr != nil {
		return cerr
	}
	for _, have := range cur.Safety.Rules {
		if sameRule(have, rule) {
			return nil
		}
	}
	want := append(slices.Clone(cur.Safety.Rules), rule)
	out, ok := spliceRule(data, rule.YAML())
	if ok {
		ok = addedOnly(out, path, cur, want)
	}
	if !ok {
		if out, err = reflowRule(data, rule.YAML()); err != nil {
			return fmt.Errorf("cannot add the rule to %s: %w", path, err)
		}
		if !addedOnly(out, path, cur, want) {
			return fmt.Errorf("cannot add the rule to %s: its layout cannot be edited safely; add %s under safety.rules by hand", path, rule.YAML())
		}
	}
	return writeAtomic(path, out, info.Mode().Perm())
}

// checkNewRule checks r as if it were written in cur's file and returns it
// canonical.
func checkNewRule(r Rule, cur *Config) (Rule, *Error) {
	if !slices.Contains([]string{RuleAllow, RuleAsk, RuleDeny}, r.Effect) {
		return r, &Error{Key: "safety.rules", Value: r.Effect, Reason: "is not the effect of a rule (use allow, ask or deny)"}
	}
	m := map[string]any{r.Effect: r.Tool}
	if r.Path != "" {
		m["path"] = r.Path
	}
	if r.Host != "" {
		m["host"] = r.Host
	}
	rule, _, value, reason := decodeRule(m)
	if reason != "" {
		return r, &Error{Key: "safety.rules", Value: value, Reason: reason}
	}
	check := *cur
	check.Safety.Rules = []Rule{rule}
	if err := validateRules(&check); err != nil {
		err.Key, err.Line = "safety.rules", 0
		return r, err
	}
	return rule, nil
}

// addedOnly reports whether out loads as cur with want for its rules: the
// edit added the rule and changed nothing else.
func addedOnly(out []byte, path string, cur *Config, want []Rule) bool {
	next, err := load(out, path, false)
	if err != nil || len(next.Safety.Rules) != len(want) {
		return false
	}
	for i := range want {
		if !sameRule(next.Safety.Rules[i], want[i]) {
			return false
		}
	}
	a, b := *cur, *next
	a.Safety.Rules, b.Safety.Rules = nil, nil
	return reflect.DeepEqual(a, b)
}

// spliceRule adds item (a rule in flow style) to safety.rules in src by
// inserting text, so every other byte stays as it was. It reports false when
// the layout is not one it knows; the caller checks the result either way.
func spliceRule(src []byte, item string) ([]byte, bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, false
	}
	nl := "\n"
	if bytes.Contains(src, []byte("\r\n")) {
		nl = "\r\n"
	}
	if len(doc.Content) == 0 {
		return appendLines(src, nl, "safety:", "  rules:", "    - "+item), true
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode || root.Style&yaml.FlowStyle != 0 || len(root.Content) == 0 || root.Content[0].Column != 1 {
		return nil, false
	}
	var safetyKey, safety *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "safety" {
			safetyKey, safety = root.Content[i], root.Content[i+1]
		}
	}
	if safety == nil {
		return appendLines(src, nl, "safety:", "  rules:", "    - "+item), true
	}
	if isNull(safety) {
		if safety.Value != "" {
			return nil, false // ~ or null written out
		}
		return insertLines(src, safetyKey.Line, nl, "  rules:", "    - "+item)
	}
	if safety.Kind != yaml.MappingNode || safety.Style&yaml.FlowStyle != 0 || len(safety.Content) == 0 {
		return nil, false
	}
	indent := strings.Repeat(" ", safety.Content[0].Column-1)
	var rulesKey, rules *yaml.Node
	for i := 0; i+1 < len(safety.Content); i += 2 {
		if safety.Content[i].Value == "rules" {
			rulesKey, rules = safety.Content[i], safety.Content[i+1]
		}
	}
	switch {
	case rules == nil:
		return insertLines(src, lastLine(safety), nl, indent+"rules:", indent+"  - "+item)
	case isNull(rules):
		if rules.Value != "" {
			return nil, false
		}
		return insertLines(src, rulesKey.Line, nl, indent+"  - "+item)
	case rules.Kind != yaml.SequenceNode:
		return nil, false
	case rules.Style&yaml.FlowStyle == 0:
		return insertLines(src, lastLine(rules), nl, strings.Repeat(" ", rules.Column-1)+"- "+item)
	}
	// A flow list: [] becomes a block list; items already in it get one more.
	open, ok := lineColumnOffset(src, rules.Line, rules.Column)
	if !ok || src[open] != '[' {
		return nil, false
	}
	end, at, ok := flowEnd(src, open)
	if !ok {
		return nil, false
	}
	if len(rules.Content) > 0 {
		// Right after the last item (and its comma, if it has one), so a
		// comment or a ] on a line of its own stays where it is.
		sep := ", "
		if src[at-1] == ',' {
			sep = " "
		}
		return slices.Concat(src[:at], []byte(sep+item), src[at:]), true
	}
	if rules.Line != rulesKey.Line {
		return nil, false
	}
	start := open
	for start > 0 && (src[start-1] == ' ' || src[start-1] == '\t') {
		start--
	}
	out := slices.Concat(src[:start], src[end:])
	return insertLines(out, rulesKey.Line, nl, indent+"  - "+item)
}

// lastLine is the last line any node under n starts on.
func lastLine(n *yaml.Node) int {
	last := n.Line
	for _, c := range n.Content {
		last = max(last, lastLine(c))
	}
	return last
}

// appendLines adds lines at the end of src, after a line break if src does
// not end with one.
func appendLines(src []byte, nl string, lines ...string) []byte {
	out := slices.Clone(src)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, nl...)
	}
	for _, l := range lines {
		out = append(out, l+nl...)
	}
	return out
}

// insertLines inserts lines after line n (1-based) of src.
func insertLines(src []byte, n int, nl string, lines ...string) ([]byte, bool) {
	pos := 0
	for l := 0; l < n; l++ {
		i := bytes.IndexByte(src[pos:], '\n')
		if i < 0 {
			if l != n-1 {
				return nil, false
			}
			return appendLines(src, nl, lines...), true
		}
		pos += i + 1
	}
	var text []byte
	for _, l := range lines {
		text = append(text, l+nl...)
	}
	return slices.Concat(src[:pos], text, src[pos:]), true
}

// lineColumnOffset converts yaml.v3's 1-based line and character column to a
// byte offset in src.
func lineColumnOffset(src []byte, line, column int) (int, bool) {
	ed := safetyEdit{src: src}
	pos, ok := ed.offset(line, column)
	return pos, ok && pos < len(src)
}

// flowEnd returns the offset just past the flow collection that opens at
// src[open] ('[' or '{'), and the offset just past the last character before
// its closing bracket that is neither space nor comment; quoted text is
// skipped whole.
func flowEnd(src []byte, open int) (end, last int, ok bool) {
	depth := 0
	for i := open; i < len(src); i++ {
		switch c := src[i]; c {
		case ' ', '\t', '\r', '\n':
			continue
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return i + 1, last, true
			}
		case '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case '\'':
			for i++; i < len(src); i++ {
				if src[i] == '\'' {
					if i+1 < len(src) && src[i+1] == '\'' {
						i++
						continue
					}
					break
				}
			}
		case '#':
			if i > 0 && (src[i-1] == ' ' || src[i-1] == '\t' || src[i-1] == '\n') {
				for i < len(src) && src[i] != '\n' {
					i++
				}
				continue
			}
		}
		last = min(i+1, len(src))
	}
	return 0, 0, false
}

// reflowRule adds item to safety.rules on the node tree and encodes it, for a
// layout spliceRule does not know.
func reflowRule(src []byte, item string) ([]byte, error) {
	ed, err := newSafetyEdit(src)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(item), &doc); err != nil || len(doc.Content) == 0 {
		return nil, fmt.Errorf("the rule %s is not YAML", item)
	}
	n := doc.Content[0]
	n.Style = yaml.FlowStyle
	rules := ed.child(ed.safety, "rules", func() *yaml.Node { return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"} })
	if rules.Kind != yaml.SequenceNode {
		*rules = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	}
	rules.Content = append(rules.Content, n)
	ed.reflow = true
	return ed.bytes()
}
