package llmtest

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// PlaySessions plays the turns of sessions sessions at once, as the load
// benchmarks do: session i starts i*spread/sessions after the first (people
// typing do not all start in the same millisecond) and plays turns one after
// another while more says so. turn plays turn n of session i and returns the
// time it spent outside the model. PlaySessions returns those times sorted,
// and how many turns failed.
func PlaySessions(sessions int, spread time.Duration, more func() bool, turn func(i, n int) (time.Duration, error)) ([]time.Duration, int64) {
	var mu sync.Mutex
	var overheads []time.Duration
	var failed atomic.Int64
	var wg sync.WaitGroup
	for i := range sessions {
		wg.Go(func() {
			time.Sleep(time.Duration(i) * spread / time.Duration(sessions))
			for n := 0; more(); n++ {
				d, err := turn(i, n)
				if err != nil {
					failed.Add(1)
					continue
				}
				mu.Lock()
				overheads = append(overheads, d)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.Sort(overheads)
	return overheads, failed.Load()
}

// Overhead is the time a turn that took took spent outside the model, per
// model round: took less what the model spent on each of its rounds (times
// holds [2]time.Time{arrived, answered} under key(round), rounds 1 to
// rounds), divided by rounds. It reports false when a round's times are
// missing: the turn did not reach the model as it should have.
func Overhead(times *sync.Map, key func(round int) string, took time.Duration, rounds int) (time.Duration, bool) {
	for r := 1; r <= rounds; r++ {
		v, ok := times.Load(key(r))
		if !ok {
			return 0, false
		}
		at := v.([2]time.Time)
		took -= at[1].Sub(at[0])
	}
	return took / time.Duration(rounds), true
}

// Percentile is the q quantile (0 to 1) of sorted durations, 0 when there are none.
func Percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}
