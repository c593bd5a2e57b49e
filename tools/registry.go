package tools

import (
	"fmt"
	"slices"
	"strings"
)

// A Registry holds the tools the model may call this run, keyed by their
// catalog name. It is read-only after NewRegistry, so it is safe to share.
type Registry struct {
	tools map[string]Tool
	names []string // catalog order
}

// A Spec is what the model is told about one tool.
type Spec struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

// NewRegistry registers ts. It refuses a nil tool, a name given twice, and a
// name that is neither in the catalog (Names) nor an outside tool's
// (Sourced, named SOURCE__TOOL): the model never sees a tool whose approval
// nobody decided. Names come in catalog order, then outside tools by name.
func NewRegistry(ts ...Tool) (*Registry, error) {
	r := &Registry{tools: make(map[string]Tool, len(ts))}
	var outside []string
	for i, t := range ts {
		if t == nil {
			return nil, fmt.Errorf("tool %d of %d is nil", i+1, len(ts))
		}
		name := t.Name()
		switch {
		case IsName(name):
		case SourceOf(t) != SourceBuiltin && strings.Contains(name, "__"):
			outside = append(outside, name)
		default:
			return nil, fmt.Errorf("tool %q is not in the catalog; known tools are %v", name, Names)
		}
		if _, dup := r.tools[name]; dup {
			return nil, fmt.Errorf("tool %q is registered twice", name)
		}
		r.tools[name] = t
	}
	for _, name := range Names {
		if _, ok := r.tools[name]; ok {
			r.names = append(r.names, name)
		}
	}
	slices.Sort(outside)
	r.names = append(r.names, outside...)
	return r, nil
}

// Get returns the tool registered under name.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.tools[name]
	return t, ok
}

// Names lists the registered tool names in catalog order.
func (r *Registry) Names() []string { return slices.Clone(r.names) }

// Specs describes the registered tools in catalog order, for the model.
func (r *Registry) Specs() []Spec {
	specs := make([]Spec, len(r.names))
	for i, name := range r.names {
		t := r.tools[name]
		specs[i] = Spec{Name: name, Description: t.Description(), Parameters: t.Parameters()}
	}
	return specs
}
