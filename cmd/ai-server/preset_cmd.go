package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/tools"
)

// presetOptions are the flags of `ai-server preset`.
type presetOptions struct {
	config string
}

func (o *presetOptions) flagSet() *flag.FlagSet {
	fs := newFlagSet("preset")
	fs.StringVar(&o.config, "config", "", "the config file at `PATH` to rewrite (default: $AILAB_CONFIG, ./config.yaml, $XDG_CONFIG_HOME/ai-lab/config.yaml)")
	return fs
}

// runPreset is `ai-server preset NAME [--config PATH]`: it rewrites safety.preset
// in the found config file in place. Flags may come before or after NAME.
func runPreset(args []string, stdout, stderr io.Writer) int {
	var opts presetOptions
	names, code, ok := parseArgs("preset", opts.flagSet(), args, stdout, stderr)
	if !ok {
		return code
	}
	if len(names) != 1 {
		return usageError(stderr, "preset: name exactly one preset, e.g. ai-server preset moderate (use %s)", orList(tools.PresetNames))
	}
	name := names[0]

	path, err := config.Find(opts.config)
	if err != nil {
		return usageError(stderr, "preset: %v", err)
	}
	if path == "" {
		return usageError(stderr, "preset: no config file found: pass --config PATH or create ./%s (copy the one from the repository)", config.FileName)
	}
	if err := config.WriteSafety(path, api.SafetyUpdate{Preset: name}); err != nil {
		var ce *config.Error
		if errors.As(err, &ce) {
			return usageError(stderr, "preset: %v", err)
		}
		fmt.Fprintf(stderr, "ai-server: preset: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stdout, "safety.preset is now %s in %s: %s\n", name, path, presetMeaning(name))
	if env := safetyOverride(name); env != "" {
		// The file is right, yet a server started from this shell would not follow
		// it; say so rather than let the user wonder why nothing changed.
		fmt.Fprintf(stderr, "ai-server: preset: note: %s is set in this shell and overrides config.yaml for a server started from it; unset it\n", env)
	}
	return exitOK
}

// presetMeaning says in words what the preset now asks approval for, so the
// user sees the effect without opening the presets table.
func presetMeaning(name string) string {
	p, ok := tools.Presets[name]
	switch {
	case !ok:
		return "approval follows safety.approval_mode and safety.tools_requiring_approval in the file"
	case !p.ApprovalMode || len(p.RequiresApproval) == 0:
		return "every tool runs without asking"
	}
	return strings.Join(p.RequiresApproval, ", ") + " wait for your approval"
}

// safetyOverride names the first AILAB_SAFETY_* variable set in the environment
// that would override the preset just written: for a fixed preset only
// AILAB_SAFETY_PRESET counts, for custom its two settings do too.
func safetyOverride(preset string) string {
	vars := []string{"AILAB_SAFETY_PRESET"}
	if preset == "custom" {
		vars = append(vars, "AILAB_SAFETY_APPROVAL_MODE", "AILAB_SAFETY_TOOLS_REQUIRING_APPROVAL")
	}
	for _, v := range vars {
		if os.Getenv(v) != "" {
			return v
		}
	}
	return ""
}
