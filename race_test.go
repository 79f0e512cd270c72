//go:build race

package toolcall_test

// The race detector makes sync.Pool drop items at random.
const raceEnabled = true
