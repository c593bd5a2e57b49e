// Package tools holds the tools the model may call: the catalog of tool names and
// safety presets, the registry that gives their schemas to the model, the file tools
// confined to the workspace, the web tools' adapters, and the execution-id format.
// It must never import server/: it runs a tool and returns its result, nothing more.
package tools

import (
	"context"
	"encoding/json"
)

// A Tool is something the model can call.
type Tool interface {
	// Name is the tool's fixed name (see the catalog).
	Name() string
	// Description tells the model what the tool does.
	Description() string
	// Parameters is the JSON Schema of the arguments object.
	Parameters() map[string]any
	// Run executes the tool with the model's raw JSON arguments. The result is
	// marshalled to JSON for the model. An error's text goes to the model as the
	// tool error, so it must be one clear sentence (say what and how to fix it).
	Run(ctx context.Context, args json.RawMessage) (any, error)
}
