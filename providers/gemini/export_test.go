package gemini

import (
	"context"
	"time"
)

// SetRetryHooks makes m wait with sleep instead of a timer and take its
// jitter from jitter (nil: random), so that tests of the retries never
// sleep and know each wait.
func SetRetryHooks(m *Model, sleep func(context.Context, time.Duration) error, jitter func() float64) {
	m.endpoint.Retry.Sleep = sleep
	m.endpoint.Retry.Jitter = jitter
}
