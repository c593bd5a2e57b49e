// Command ai-server serves the AI Lab HTTP API and offers a few subcommands that run
// parts of it from a terminal (preset, sanitize, search, read). It only parses flags,
// loads config, wires packages together and maps errors to exit codes.
package main

import (
	"fmt"
	"io"
	"os"
)

// Exit codes (CONTRACT section 1).
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "preset":
			return runPreset(args[1:], stdout, stderr)
		case "sanitize":
			return runSanitize(args[1:], stdin, stdout, stderr)
		case "search":
			return runSearch(args[1:], stdout, stderr)
		case "read":
			return runRead(args[1:], stdout, stderr)
		}
	}
	return runServe(args, stdout, stderr)
}

// usageError prints one line and returns the usage exit code.
func usageError(stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "ai-server: "+format+"\n", a...)
	return exitUsage
}
