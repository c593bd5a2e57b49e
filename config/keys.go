package config

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// A key is one leaf of the config, found by reflection over Config so that the
// struct tags stay the one list of key names.
type key struct {
	section, name string
	path          string // section.name
	index         []int
	typ           reflect.Type
}

func (k key) get(c *Config) any {
	return reflect.ValueOf(c).Elem().FieldByIndex(k.index).Interface()
}

func (k key) set(c *Config, v any) {
	reflect.ValueOf(c).Elem().FieldByIndex(k.index).Set(reflect.ValueOf(v))
}

// envName is the override variable for the key, e.g. AILAB_WEB_SEARCH_ENDPOINT.
func (k key) envName() string {
	return EnvPrefix + "_" + strings.ToUpper(strings.ReplaceAll(k.path, ".", "_"))
}

// keyTable lists every key in the order of the struct (and of config.yaml).
var keyTable = buildKeyTable()

// sections maps each section name to its key names, in order.
var sections, sectionOrder = buildSections()

func buildKeyTable() []key {
	var keys []key
	t := reflect.TypeFor[Config]()
	for i := range t.NumField() {
		sf := t.Field(i)
		section := sf.Tag.Get("mapstructure")
		if section == "-" || sf.Type.Kind() != reflect.Struct {
			continue
		}
		for j := range sf.Type.NumField() {
			lf := sf.Type.Field(j)
			name := lf.Tag.Get("mapstructure")
			keys = append(keys, key{
				section: section,
				name:    name,
				path:    section + "." + name,
				index:   []int{i, j},
				typ:     lf.Type,
			})
		}
	}
	return keys
}

func buildSections() (map[string][]string, []string) {
	m := map[string][]string{}
	var order []string
	for _, k := range keyTable {
		if _, ok := m[k.section]; !ok {
			order = append(order, k.section)
		}
		m[k.section] = append(m[k.section], k.name)
	}
	return m, order
}

func lookupKey(path string) (key, bool) {
	for _, k := range keyTable {
		if k.path == path {
			return k, true
		}
	}
	return key{}, false
}

var durationType = reflect.TypeFor[time.Duration]()

// decode turns a raw value (from YAML, a default or an env string) into the key's
// Go type. It is hand-written rather than left to mapstructure's weak typing so
// that "5.5" for an int or a bare 120 for a duration is refused instead of
// silently truncated or read as nanoseconds, and so the reason can say how to fix it.
func decode(typ reflect.Type, raw any) (any, string) {
	switch typ {
	case durationType:
		return decodeDuration(raw)
	case serversType:
		return decodeServers(raw)
	case rulesType:
		// Load calls decodeRules itself, for the line of each rule.
		rules, err := decodeRules(raw, nil)
		if err != nil {
			return nil, err.Error()
		}
		return rules, ""
	}
	switch typ.Kind() {
	case reflect.String:
		return decodeString(raw)
	case reflect.Bool:
		return decodeBool(raw)
	case reflect.Int:
		n, reason := decodeInt(raw)
		if reason != "" {
			return nil, reason
		}
		if n > math.MaxInt || n < math.MinInt {
			return nil, "is too large"
		}
		return int(n), ""
	case reflect.Int64:
		n, reason := decodeInt(raw)
		if reason != "" {
			return nil, reason
		}
		return n, ""
	case reflect.Slice:
		return decodeList(raw)
	}
	panic(fmt.Sprintf("config: no decoder for %v", typ)) // a new field type needs a decoder
}

func decodeDuration(raw any) (any, string) {
	switch v := raw.(type) {
	case time.Duration:
		return v, ""
	case string:
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			// An env var is always a string, so AILAB_LLM_TIMEOUT=120 lands here.
			if _, nerr := strconv.ParseFloat(strings.TrimSpace(v), 64); nerr == nil {
				return nil, "has no unit (write it like 120s, 15m or 1h30m)"
			}
			return nil, "is not a duration (write it like 120s, 15m or 1h30m)"
		}
		return d, ""
	case int, int64, uint64, float64:
		return nil, "has no unit (write it like 120s, 15m or 1h30m)"
	}
	return nil, "must be a duration like 120s, 15m or 1h30m"
}

func decodeString(raw any) (any, string) {
	switch v := raw.(type) {
	case string:
		return v, ""
	case int, int64, uint64, bool:
		return fmt.Sprint(v), ""
	case float64:
		return nil, "must be text: put it in quotes so it is not read as a number"
	}
	return nil, "must be a single text value, not a list or mapping"
}

func decodeBool(raw any) (any, string) {
	switch v := raw.(type) {
	case bool:
		return v, ""
	case string:
		if b, err := strconv.ParseBool(strings.TrimSpace(v)); err == nil {
			return b, ""
		}
	}
	return nil, "must be true or false"
}

func decodeInt(raw any) (int64, string) {
	const reason = "must be a whole number"
	switch v := raw.(type) {
	case int:
		return int64(v), ""
	case int64:
		return v, ""
	case uint64:
		if v > math.MaxInt64 {
			return 0, "is too large"
		}
		return int64(v), ""
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return int64(v), ""
		}
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err == nil {
			return n, ""
		}
	}
	return 0, reason
}

// decodeList takes a YAML list, or a comma-separated string as env vars give it.
func decodeList(raw any) (any, string) {
	out := []string{}
	switch v := raw.(type) {
	case nil:
		return out, ""
	case []string:
		return append(out, v...), ""
	case string:
		// An env var may be written the way config.yaml writes the list, [a, b];
		// [] is then the only way to override a list with an empty one.
		v = strings.TrimSpace(v)
		if inner, ok := strings.CutPrefix(v, "["); ok {
			if inner, ok = strings.CutSuffix(inner, "]"); ok {
				v = inner
			}
		}
		for part := range strings.SplitSeq(v, ",") {
			if part = strings.TrimSpace(strings.Trim(strings.TrimSpace(part), `"'`)); part != "" {
				out = append(out, part)
			}
		}
		return out, ""
	case []any:
		for _, item := range v {
			switch item := item.(type) {
			case string:
				out = append(out, item)
			case int, int64, uint64, bool:
				out = append(out, fmt.Sprint(item))
			default:
				return nil, "must be a list of plain names like [a, b]"
			}
		}
		return out, ""
	}
	return nil, "must be a list like [a, b] (or comma-separated in an env var)"
}

// shown renders a raw value for an error message.
func shown(raw any) string {
	switch v := raw.(type) {
	case string:
		return v
	case nil:
		return ""
	case []any, map[string]any:
		return ""
	}
	return fmt.Sprint(raw)
}
