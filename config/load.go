package config

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/viper"
	"gopkg.in/yaml.v3"
)

// Load reads the config: defaults, then the YAML file at path ("" means defaults and
// env only, as Find returns when there is no file), then AILAB_ env overrides.
// Unknown keys, unknown tool names, wrong types and bad values are refused with an
// *Error naming the key.
func Load(path string) (*Config, error) {
	var data []byte
	if path != "" {
		var err error
		data, err = os.ReadFile(path)
		if err != nil {
			return nil, &Error{Path: path, Reason: fmt.Sprintf("cannot be read (%v)", unwrapPathError(err))}
		}
	}
	return load(data, path, true)
}

// load is Load on bytes; withEnv false reads the file alone, which is what a file
// rewrite must check (the env is not the file's fault).
func load(data []byte, path string, withEnv bool) (*Config, error) {
	display := path
	if display == "" {
		display = FileName
	}
	lines, cerr := checkTree(data)
	if cerr != nil {
		cerr.Path = display
		return nil, cerr
	}

	if withEnv {
		if err := checkEnvNames(os.Environ()); err != nil {
			return nil, err
		}
	}

	v := viper.New()
	v.SetConfigType("yaml")
	def := Default()
	for _, k := range keyTable {
		v.SetDefault(k.path, k.get(def))
	}
	if withEnv {
		v.SetEnvPrefix(EnvPrefix)
		v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
		v.AutomaticEnv()
	}
	if len(data) > 0 {
		if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
			return nil, &Error{Path: display, Reason: "is not valid YAML (" + oneLine(err.Error()) + ")"}
		}
	}

	// fromEnv reports whether k's value comes from its environment variable.
	fromEnv := func(k key) bool {
		val, set := os.LookupEnv(k.envName())
		return withEnv && set && val != ""
	}
	// where says which source a key's value came from, for the error message.
	// A key inside a structured value (safety.rules[2]) comes with its own line.
	where := func(e *Error) *Error {
		name, _, _ := strings.Cut(e.Key, "[")
		k, ok := lookupKey(name)
		if !ok {
			return e
		}
		if fromEnv(k) {
			e.Path, e.Line = "env "+k.envName(), 0
			return e
		}
		if l, ok := lines[k.path]; ok {
			e.Path = display
			if e.Line == 0 {
				e.Line = l.lineOf(e.Value)
			}
			return e
		}
		e.Path = "default"
		return e
	}

	c := &Config{Path: path}
	for _, k := range keyTable {
		raw := v.Get(k.path)
		if raw == nil {
			raw = k.get(def)
		}
		// What the file says, as written: YAML would turn an unquoted token 0123
		// into 83 and 1_000 into 1000, and a refusal should quote the user's text.
		written, fromFile := "", false
		if l, ok := lines[k.path]; ok && l.scalar {
			if val, set := os.LookupEnv(k.envName()); !withEnv || !set || val == "" {
				written, fromFile = l.text, true
			}
		}
		if fromFile && k.typ.Kind() == reflect.String {
			raw = written
		}
		l, inFile := lines[k.path]
		if inFile && l.raw != nil && !fromEnv(k) {
			raw = l.raw
		}
		if k.typ == rulesType {
			var at ruleLines
			if inFile && !fromEnv(k) {
				at = l.rules
			}
			rules, err := decodeRules(raw, at)
			if err != nil {
				return nil, where(err)
			}
			k.set(c, rules)
			continue
		}
		val, reason := decode(k.typ, raw)
		if reason != "" {
			shownValue := shown(raw)
			if fromFile {
				shownValue = written
			}
			return nil, where(&Error{Key: k.path, Value: shownValue, Reason: reason})
		}
		k.set(c, val)
	}
	if err := validate(c); err != nil {
		// The one refusal of a rule that waits for mcp.servers is about its
		// tool: point at the allow, ask or deny key.
		if i, ok := ruleIndex(err.Key); ok && i < len(c.Safety.Rules) {
			if l, inFile := lines["safety.rules"]; inFile {
				if n := l.rules.at(i, c.Safety.Rules[i].Effect); n > 0 {
					err.Line = n
				}
			}
		}
		return nil, where(err)
	}
	return c, nil
}

// checkEnvNames refuses a non-empty AILAB_<SECTION>_* variable that names no key,
// such as AILAB_LLM_MODLE: viper would ignore it, and the server would then run
// with a setting the user believes they changed. Variables outside the sections
// (AILAB_CONFIG, and the client's AILAB_SERVER and AILAB_TOKEN) are left alone.
func checkEnvNames(environ []string) *Error {
	known := map[string]bool{}
	for _, k := range keyTable {
		known[k.envName()] = true
	}
	slices.Sort(environ) // the same first complaint every run
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if value == "" || known[name] {
			continue
		}
		for _, section := range sectionOrder {
			prefix := EnvPrefix + "_" + strings.ToUpper(section) + "_"
			if !strings.HasPrefix(name, prefix) {
				continue
			}
			var names []string
			for _, n := range sections[section] {
				names = append(names, prefix+strings.ToUpper(n))
			}
			return &Error{Key: name, Path: "env", Reason: "names no config key (the " + section + " keys are " + strings.Join(names, ", ") + "); fix the name or unset it"}
		}
	}
	return nil
}

// A leaf is where a key sits in the file and, for a non-null scalar value, the
// value's text as written.
type leaf struct {
	line   int
	text   string
	scalar bool
	// items holds the line of each scalar item of a list value, so a refused
	// item of a list written one item a line is shown on its own line.
	items map[string]int
	// raw is a structured value decoded straight from the file (mcp.servers,
	// safety.rules).
	raw any
	// rules holds the lines of the entries of safety.rules.
	rules ruleLines
}

// lineOf returns the line of the value a refusal quotes: the item's own line
// when it is an item of the list, else the key's.
func (l leaf) lineOf(value string) int {
	if n, ok := l.items[value]; ok {
		return n
	}
	return l.line
}

// checkTree walks the YAML node tree against the known keys, so a typo such as
// llm.modle is refused with its line instead of silently ignored. It returns
// every leaf key it saw.
func checkTree(data []byte) (map[string]leaf, *Error) {
	lines := map[string]leaf{}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, syntaxError(data, err)
	}
	if len(doc.Content) == 0 {
		return lines, nil
	}
	root := resolve(doc.Content[0])
	if isNull(root) {
		return lines, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, &Error{Line: root.Line, Reason: "must be a mapping of sections (" + strings.Join(sectionOrder, ", ") + ")"}
	}
	seenSection := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		kn, vn := root.Content[i], resolve(root.Content[i+1])
		section := kn.Value
		names, ok := sections[section]
		if !ok || kn.Kind != yaml.ScalarNode {
			return nil, &Error{Key: section, Line: kn.Line, Reason: "unknown section (use " + strings.Join(sectionOrder, ", ") + ")"}
		}
		if seenSection[section] {
			return nil, &Error{Key: section, Line: kn.Line, Reason: "appears twice (merge the two sections into one)"}
		}
		seenSection[section] = true
		if isNull(vn) {
			continue
		}
		if vn.Kind != yaml.MappingNode {
			return nil, &Error{Key: section, Line: kn.Line, Reason: "must be a mapping of keys (" + strings.Join(names, ", ") + ")"}
		}
		for j := 0; j+1 < len(vn.Content); j += 2 {
			lk, lv := vn.Content[j], resolve(vn.Content[j+1])
			path := section + "." + lk.Value
			if lk.Kind != yaml.ScalarNode || !slices.Contains(names, lk.Value) {
				return nil, &Error{Key: path, Line: lk.Line, Reason: "unknown key (" + section + " takes " + strings.Join(names, ", ") + ")"}
			}
			if first, dup := lines[path]; dup {
				return nil, &Error{Key: path, Line: lk.Line, Reason: fmt.Sprintf("appears twice (first on line %d; keep one)", first.line)}
			}
			var raw any
			var rules ruleLines
			if path == "safety.rules" && !isNull(lv) {
				var err *Error
				if raw, rules, err = readRulesTree(lk.Line, lv); err != nil {
					return nil, err
				}
			} else if path == "mcp.servers" && !isNull(lv) {
				if err := checkServersTree(lk.Line, lv); err != nil {
					return nil, err
				}
				// Decoded from the node, not through viper, which lower-cases
				// map keys (an env entry's NAME must keep its case).
				if err := lv.Decode(&raw); err != nil {
					return nil, &Error{Key: path, Line: lk.Line, Reason: "cannot be read (" + oneLine(err.Error()) + ")"}
				}
			} else if lv.Kind == yaml.MappingNode {
				return nil, &Error{Key: path, Line: lk.Line, Reason: "must be a single value, not a mapping"}
			}
			l := leaf{line: lk.Line, text: lv.Value, scalar: lv.Kind == yaml.ScalarNode && !isNull(lv), raw: raw, rules: rules}
			if lv.Kind == yaml.SequenceNode {
				l.items = map[string]int{}
				for _, item := range lv.Content {
					if item = resolve(item); item.Kind == yaml.ScalarNode {
						if _, seen := l.items[item.Value]; !seen {
							l.items[item.Value] = item.Line
						}
					}
				}
			}
			lines[path] = l
		}
	}
	return lines, nil
}

func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

func oneLine(s string) string {
	s = strings.TrimPrefix(s, "yaml: ")
	return strings.Join(strings.Fields(s), " ")
}

// syntaxError turns yaml.v3's refusal of data into an *Error on the line to fix.
//
// yaml.v3's own "line N" cannot be passed on as it is: its parser gives the
// 0-based line of its mark (a flow list left open on line 2 is "line 1"), it
// takes a mark on the first line for no mark at all and then names another line
// or none, a block mapping or list that breaks is named by the line where it
// starts (for config.yaml, the line of "server:" whatever line is wrong), and a
// bad UTF-8 byte or an unknown alias comes with no line.
func syntaxError(data []byte, err error) *Error {
	_, problem := yamlProblem(err)
	line, cause := syntaxErrorLine(data, problem)
	e := &Error{Line: line, Reason: "is not valid YAML (" + cause + ")"}
	if hint := syntaxHint(cause, lineText(data, line)); hint != "" {
		e.Reason += "; " + hint
	}
	return e
}

// syntaxHint says what to change for the problems people make most, which
// yaml.v3 words in parser terms.
func syntaxHint(problem, line string) string {
	switch {
	case strings.Contains(problem, "cannot start any token") && strings.Contains(line, "\t"):
		return "indent with spaces, not tabs"
	case problem == "found unexpected end of stream":
		return "close the quote that opens on this line"
	case problem == "did not find expected ',' or ']'":
		return "close the [ list that opens on this line with ]"
	case problem == "did not find expected ',' or '}'":
		return "close the { mapping that opens on this line with }"
	case blockProblems[problem]:
		return "indent this line like the keys above it"
	case problem == "mapping values are not allowed in this context":
		return "quote a value that holds \": \", or indent this key like the keys above it"
	case problem == "could not find expected ':'":
		return "write a key as key: value"
	case strings.HasPrefix(problem, "unknown anchor"):
		return "define the anchor (&name) before the alias (*name) that uses it"
	}
	return ""
}

// lineText returns the 1-based line n of data.
func lineText(data []byte, n int) string {
	for l := range bytes.Lines(data) {
		if n--; n == 0 {
			return string(l)
		}
	}
	return ""
}

var yamlLinePrefix = regexp.MustCompile(`^line (\d+): `)

// yamlProblem splits a yaml.v3 error into the line it names (0 for none) and
// the problem it describes.
func yamlProblem(err error) (int, string) {
	msg := oneLine(err.Error())
	if m := yamlLinePrefix.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, msg[len(m[0]):]
	}
	return 0, msg
}

// parserProblems are the problems yaml.v3's parser (parserc.go) reports, as
// opposed to its scanner; it adds 1 to the scanner's 0-based lines only.
var parserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"found undefined tag handle":             true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected key":              true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found duplicate %TAG directive":         true,
}

// blockProblems are parser problems whose mark of interest is the line that
// breaks a block mapping or list; yaml.v3 names the line where that block starts.
var blockProblems = map[string]bool{
	"did not find expected key":           true,
	"did not find expected '-' indicator": true,
}

// syntaxErrorLine returns the 1-based line of data that problem is about (0
// when it cannot be told) and the problem to report there, which is another
// when an earlier one caused it.
func syntaxErrorLine(data []byte, problem string) (int, string) {
	if !blockProblems[problem] {
		if n, ok := markedLine(data, problem); ok {
			return n, problem
		}
	}
	return failingSince(data, problem)
}

// markedLine returns the line of yaml.v3's mark for problem. With a blank line
// first no mark sits on line 0, so yaml.v3 always names the mark it prefers:
// the start of the construct left open (a quote, a flow list), else where it
// stopped; both are the line to fix. It reports false for a problem without a
// mark (bad UTF-8, an unknown alias).
func markedLine(data []byte, problem string) (int, bool) {
	shifted := append([]byte("\n"), bytes.TrimPrefix(data, []byte("\ufeff"))...)
	var doc yaml.Node
	err := yaml.Unmarshal(shifted, &doc)
	if err == nil {
		return 0, false
	}
	n, p := yamlProblem(err)
	if n == 0 || p != problem {
		return 0, false
	}
	// The blank line turned the 0-based mark into data's 1-based line; yaml.v3
	// adds 1 more to a scanner's mark.
	if !parserProblems[problem] {
		n--
	}
	return clampLine(data, n), true
}

// failingSince finds where a problem without a usable mark starts: the first
// line of data whose prefix (whole lines) fails with problem. Once the bad line
// is in, every longer prefix fails the same way, so a bisection finds it in a
// few parses. The prefix that stops just before parses, however far back the
// enclosing block starts, or it fails otherwise and holds the cause, such as a
// quote left open that swallowed the lines up to the one yaml.v3 stopped at.
func failingSince(data []byte, problem string) (int, string) {
	var ends []int // ends[k-1] is the length of the prefix of lines 1..k
	for i, b := range data {
		if b == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		ends = append(ends, len(data))
	}
	// failure returns the problem of the prefix of k lines, "" when it parses.
	failure := func(k int) string {
		var doc yaml.Node
		if err := yaml.Unmarshal(data[:ends[k-1]], &doc); err != nil {
			_, p := yamlProblem(err)
			return p
		}
		return ""
	}
	// Gallop back from the whole file, which fails, then bisect: lo never fails
	// with problem (0 lines parse), hi does.
	lo, hi := 0, len(ends)
	for step := 1; hi-step >= 1; step *= 2 {
		if failure(hi-step) != problem {
			lo = hi - step
			break
		}
		hi -= step
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if failure(mid) == problem {
			hi = mid
		} else {
			lo = mid
		}
	}
	if lo > 0 {
		if p := failure(lo); p != "" && !blockProblems[p] {
			if n, ok := markedLine(data[:ends[lo-1]], p); ok {
				return n, p
			}
		}
	}
	return hi, problem
}

// clampLine keeps n within data's lines: a problem found at the end of the
// input (a list never closed) is on the last line, not the one after it.
func clampLine(data []byte, n int) int {
	lines := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		lines++
	}
	return max(1, min(n, lines))
}
