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

// runPreset is `ai-server preset NAME [--config PATH]`: it rewrites safety.preset
// in the found config file in place. Flags may come before or after NAME.
func runPreset(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("preset", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	configPath := fs.String("config", "", "config file to rewrite")
	var names []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintln(stdout, "usage: ai-server preset strict|moderate|minimal|custom [--config PATH]")
				return exitOK
			}
			return usageError(stderr, "preset: %v (usage: ai-server preset NAME [--config PATH])", err)
		}
		if fs.NArg() == 0 {
			break
		}
		names = append(names, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(names) != 1 {
		return usageError(stderr, "preset: name exactly one preset (usage: ai-server preset strict|moderate|minimal|custom [--config PATH])")
	}
	name := names[0]

	path, err := config.Find(*configPath)
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
