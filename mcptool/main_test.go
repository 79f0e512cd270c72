package mcptool_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine running: every
// Client and session the tests open must be closed.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
