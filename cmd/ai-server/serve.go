package main

import "io"

func runServe(args []string, stdout, stderr io.Writer) int {
	return usageError(stderr, "serve is not built yet")
}
