//go:build unix

package tools

import (
	"io/fs"
	"syscall"
)

// hardLinks is the number of names fi's file has, and whether the system
// reports it.
func hardLinks(fi fs.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Nlink), true // Nlink is uint16 on darwin, uint32 on some BSDs
}
