//go:build !unix

package sanitize

import "time"

// processCPUTime is not measured here; benchmarks then report wall-clock figures only.
func processCPUTime() time.Duration { return 0 }
