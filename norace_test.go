//go:build !race

package toolcall_test

const raceEnabled = false
