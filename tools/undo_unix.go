//go:build unix

package tools

import "syscall"

// nofollow makes an open fail on a symbolic link at the end of the path.
const nofollow = syscall.O_NOFOLLOW
