//go:build !unix

package tools

// nofollow is 0 where the system has no O_NOFOLLOW; Inspect checks with
// Lstat first.
const nofollow = 0

// nonblock is 0 where opens have no O_NONBLOCK.
const nonblock = 0
