package llmtest

import (
	"fmt"
	"slices"
	"sync"
)

// A script is what Provider and Server share: the steps to play in order and the
// requests received so far. Its methods are safe for concurrent use.
type script struct {
	mu       sync.Mutex
	steps    []Step
	next     int
	requests []Request
}

// take records req and returns the next step with the request's number (1-based).
// When the script has run out, the error says so in the words a test failure shows.
func (s *script) take(req Request) (Step, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	n := len(s.requests)
	if s.next >= len(s.steps) {
		return Step{}, n, fmt.Errorf("llmtest: script exhausted: request %d arrived but the script has only %d steps", n, len(s.steps))
	}
	step := s.steps[s.next]
	s.next++
	return step, n, nil
}

// Requests returns a copy of every request received so far, in order.
func (s *script) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Add appends steps to the script.
func (s *script) Add(steps ...Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, steps...)
}

// Remaining reports how many steps of the script have not been played.
func (s *script) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.steps) - s.next
}

// lastModel is the model named by the newest request, or "".
func (s *script) lastModel() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		return ""
	}
	return s.requests[len(s.requests)-1].Model
}
