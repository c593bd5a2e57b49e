package mcp

import (
	"encoding/json"
	"fmt"
)

const (
	// maxSchemaBytes bounds one tool's input schema, as encoded JSON, before
	// and after sanitizing: a larger tool is left out (ServerInfo.Skipped).
	// The model reads every schema on every request.
	maxSchemaBytes = 16 * 1024
	// maxListBytes bounds the definitions (Tool.DefinitionSize) of one server's
	// tools together: the tools past it are left out, each with why.
	maxListBytes = 256 * 1024
)

// structuralKeys are the schema keywords whose strings are names, types or
// patterns rather than text: sanitizing them would break the schema, so they
// are kept as given, but a tool whose structural strings (or property names)
// the sanitizer would change is left out.
var structuralKeys = map[string]bool{
	"type": true, "$ref": true, "$id": true, "$schema": true, "$anchor": true,
	"$dynamicRef": true, "$dynamicAnchor": true, "pattern": true, "format": true,
	"required": true, "dependentRequired": true, "contentEncoding": true,
	"contentMediaType": true,
}

// cleanSchema is an MCP tool's input schema as the model may see it: every
// text in it (description, title, enum, const, default and examples strings,
// at any depth: properties, items, $defs...) sanitized with o, the structure
// as given. It returns why the tool must be left out instead, when the schema
// is over maxSchemaBytes or a name in it reads as something the sanitizer
// would change.
func (o Options) cleanSchema(schema any) (map[string]any, string) {
	if schema == nil {
		return map[string]any{"type": "object", "properties": map[string]any{}}, ""
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, "its input schema cannot be encoded as JSON"
	}
	if len(raw) > maxSchemaBytes {
		return nil, schemaTooLarge(len(raw))
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, "its input schema is not a JSON object"
	}
	w := schemaWalker{opts: o}
	out := w.walk(m, false).(map[string]any)
	if w.bad != "" {
		return nil, "its input schema has a name the sanitizer would change (" + w.bad + "), so it may carry instructions"
	}
	if raw, _ = json.Marshal(out); len(raw) > maxSchemaBytes {
		return nil, schemaTooLarge(len(raw))
	}
	return out, ""
}

func schemaTooLarge(n int) string {
	return fmt.Sprintf("its input schema is %d bytes of JSON, more than the %d (%d KB) one tool's schema may hold", n, maxSchemaBytes, maxSchemaBytes/1024)
}

// A schemaWalker sanitizes a schema's texts and checks its names.
type schemaWalker struct {
	opts Options
	bad  string // the first name the sanitizer would change, as the model would see it
}

func (w *schemaWalker) walk(v any, structural bool) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			w.check(k)
			out[k] = w.walk(val, structural || structuralKeys[k])
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = w.walk(val, structural)
		}
		return out
	case string:
		if structural {
			w.check(x)
			return x
		}
		return w.opts.clean(x)
	default:
		return v
	}
}

// check notes name if the sanitizer (without datamarks, which only mark
// spaces) would change it.
func (w *schemaWalker) check(name string) {
	if w.bad != "" {
		return
	}
	o := w.opts
	o.Datamark = false
	if o.clean(name) != name {
		shown, long := cut(o.clean(name), 60)
		if long {
			shown += "…"
		}
		w.bad = fmt.Sprintf("%q", shown)
	}
}
