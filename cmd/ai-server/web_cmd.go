package main

import "io"

// runSearch and runRead are owned by the web tools work (issue 4).
func runSearch(args []string, stdout, stderr io.Writer) int {
	return usageError(stderr, "search is not built yet")
}

func runRead(args []string, stdout, stderr io.Writer) int {
	return usageError(stderr, "read is not built yet")
}
