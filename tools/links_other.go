//go:build !unix

package tools

import "io/fs"

// hardLinks reports that the link count is unknown: outside unix, os.Stat
// does not carry it (Windows keeps it behind GetFileInformationByHandle), so
// the hard-link refusal does not apply there.
func hardLinks(fs.FileInfo) (uint64, bool) { return 0, false }
