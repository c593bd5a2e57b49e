//go:build !unix

package tools

// nofollow is 0 where the system has no O_NOFOLLOW; Inspect checks with
// Lstat first.
const nofollow = 0
