//go:build race

package encode

// The race detector makes sync.Pool drop items at random.
const raceEnabled = true
