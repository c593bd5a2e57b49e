//go:build unix

package tools

import "syscall"

// nofollow makes an open fail on a symbolic link at the end of the path.
const nofollow = syscall.O_NOFOLLOW

// nonblock opens without waiting: a FIFO swapped in for a file between a
// tool's check and its open cannot hang the tool (reading or writing a
// regular file is the same either way). It also saves Go's runtime four
// fcntl calls an open, which otherwise turns the file non-blocking to try
// the poller and back when the poller refuses a regular file.
const nonblock = syscall.O_NONBLOCK
