package main

import "io"

// runSanitize is owned by the sanitizer work (issue 3).
func runSanitize(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return usageError(stderr, "sanitize is not built yet")
}
