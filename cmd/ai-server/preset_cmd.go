package main

import "io"

// runPreset is owned by the config work.
func runPreset(args []string, stdout, stderr io.Writer) int {
	return usageError(stderr, "preset is not built yet")
}
