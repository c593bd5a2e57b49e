package main

import (
	"context"
	"errors"
)

// startDemoServer is a stand-in until the integrator writes demo.go, which starts
// ai-server in-process on the demo model; delete this file when demo.go lands.
func startDemoServer(ctx context.Context) (url, token string, stop func(), err error) {
	return "", "", nil, errors.New("the demo server is not built yet")
}
