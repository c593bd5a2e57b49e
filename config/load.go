package config

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"slices"
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

	// where says which source a key's value came from, for the error message.
	where := func(e *Error) *Error {
		k, ok := lookupKey(e.Key)
		if !ok {
			return e
		}
		if withEnv {
			if val, set := os.LookupEnv(k.envName()); set && val != "" {
				e.Path = "env " + k.envName()
				return e
			}
		}
		if l, ok := lines[k.path]; ok {
			e.Path, e.Line = display, l.line
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
}

// checkTree walks the YAML node tree against the known keys, so a typo such as
// llm.modle is refused with its line instead of silently ignored. It returns
// every leaf key it saw.
func checkTree(data []byte) (map[string]leaf, *Error) {
	lines := map[string]leaf{}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		reason := "is not valid YAML (" + oneLine(err.Error()) + ")"
		// yaml.v3's words for a tab in the indentation do not say what to change.
		if bytes.Contains(data, []byte("\t")) && strings.Contains(err.Error(), "cannot start any token") {
			reason += "; indent with spaces, not tabs"
		}
		return nil, &Error{Reason: reason}
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
			if lv.Kind == yaml.MappingNode {
				return nil, &Error{Key: path, Line: lk.Line, Reason: "must be a single value, not a mapping"}
			}
			lines[path] = leaf{line: lk.Line, text: lv.Value, scalar: lv.Kind == yaml.ScalarNode && !isNull(lv)}
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
