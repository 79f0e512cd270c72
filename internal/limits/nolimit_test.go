package limits_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/internal/limits"
)

// TestNoLimit keeps the value Read takes as no limit the one the API
// documents.
func TestNoLimit(t *testing.T) {
	assert.Equal(t, toolcall.NoLimit, limits.NoLimit)
}
