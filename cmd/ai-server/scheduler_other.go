//go:build !linux

package main

// steadyScheduler does nothing here: the setting was measured on Linux only.
func steadyScheduler(func(format string, args ...any)) {}
