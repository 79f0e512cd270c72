package openai_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openai"
)

// TestDefaultClientReusesConnections: 4,000 calls, 32 at a time, through
// the default HTTP client (Config.HTTPClient nil) open at most 48 TCP
// connections, about one per call in flight. Go's default transport keeps
// 2 idle connections per host, and with it such a run opened from 95 to
// 1,599 connections.
func TestDefaultClientReusesConnections(t *testing.T) {
	const calls, concurrency, maxConns = 4000, 32, 48
	srv, opened := providertest.CountConns(t, okChat(t))
	t.Cleanup(httpline.DefaultClient().CloseIdleConnections) // before srv.Close
	m := openai.New(openai.Config{BaseURL: srv.URL + "/v1", APIKey: testKey, Model: "tiny"})

	providertest.Hammer(t, calls, concurrency, func() error {
		resp, err := m.Chat(context.Background(), retryReq)
		if err == nil && resp.Message.Content != "Hello! How can I help you?" {
			t.Errorf("reply %q", resp.Message.Content)
		}
		return err
	})

	require.Positive(t, opened())
	assert.LessOrEqual(t, opened(), maxConns, "TCP connections opened for %d calls, %d at a time", calls, concurrency)
	t.Logf("%d calls, %d at a time: %d connections", calls, concurrency, opened())
}
