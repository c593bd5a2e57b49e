package tools

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The fixed tool names (CONTRACT section 3).
const (
	WebSearch       = "web_search"
	ReadWebpage     = "read_webpage"
	ReadFile        = "read_file"
	WriteFile       = "write_file"
	DeleteFile      = "delete_file"
	MoveFile        = "move_file"
	CopyFile        = "copy_file"
	CreateDirectory = "create_directory"
	ListDirectory   = "list_directory"
)

// Names lists every tool name in a stable order.
var Names = []string{WebSearch, ReadWebpage, ReadFile, WriteFile, DeleteFile, MoveFile, CopyFile, CreateDirectory, ListDirectory}

// IsName reports whether name is one of the fixed tool names.
func IsName(name string) bool { return slices.Contains(Names, name) }

// A Preset is a named safety setting: whether approval is on and which tools
// need it. It is data: package policy reads it, with the rules and grants, to
// decide each call.
type Preset struct {
	Name             string
	ApprovalMode     bool
	RequiresApproval []string
}

// Preset names (CONTRACT section 2).
const (
	PresetStrict   = "strict"
	PresetModerate = "moderate"
	PresetMinimal  = "minimal"
	PresetCustom   = "custom"
)

// PresetNames lists the preset names in the order they are documented.
var PresetNames = []string{PresetStrict, PresetModerate, PresetMinimal, PresetCustom}

// Presets is the one table of the fixed presets; custom takes its values from config.
var Presets = map[string]Preset{
	PresetStrict:   {Name: PresetStrict, ApprovalMode: true, RequiresApproval: []string{WriteFile, DeleteFile, MoveFile, CopyFile, CreateDirectory, WebSearch, ReadWebpage}},
	PresetModerate: {Name: PresetModerate, ApprovalMode: true, RequiresApproval: []string{WriteFile, DeleteFile, MoveFile, CopyFile, CreateDirectory}},
	PresetMinimal:  {Name: PresetMinimal, ApprovalMode: false, RequiresApproval: []string{}},
}

// ExecutionIDPattern matches an execution id anywhere in text:
// <tool_name>_<13-digit unix milliseconds>_<8 lowercase hex>.
var ExecutionIDPattern = regexp.MustCompile(`\b([a-z][a-z0-9_]*?)_(\d{13})_([0-9a-f]{8})\b`)

// NewExecutionID returns a fresh execution id for a run of tool started at t.
func NewExecutionID(tool string, t time.Time) string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand failed: %v", err)) // never happens on supported platforms
	}
	return fmt.Sprintf("%s_%013d_%s", IDPrefix(tool), t.UnixMilli(), hex.EncodeToString(b[:]))
}

// IDPrefix is the tool part of an execution id: the tool's name lower-cased,
// every character outside [a-z0-9_] written _ (CONTRACT section 12). For the
// built-in tools it is the name itself.
func IDPrefix(name string) string {
	b := []byte(strings.ToLower(name))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] < 'a' || b[0] > 'z' {
		// An id's tool part starts with a letter (ExecutionIDPattern).
		b = append([]byte("t_"), b...)
	}
	return string(b)
}

// A Sourced tool says where it comes from: "builtin" or "mcp:NAME".
type Sourced interface {
	Source() string
}

// SourceOf is where t comes from: its Source, or "builtin".
func SourceOf(t Tool) string {
	if s, ok := t.(Sourced); ok {
		return s.Source()
	}
	return SourceBuiltin
}

// SourceBuiltin is the source of the catalog's tools.
const SourceBuiltin = "builtin"
