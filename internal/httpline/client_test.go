package httpline

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultClient(t *testing.T) {
	c := DefaultClient()
	assert.Same(t, c, DefaultClient(), "one client for all models")
	assert.Zero(t, c.Timeout, "contexts bound calls, streams may be long")
	dt, ok := c.Transport.(*defaultTransport)
	require.True(t, ok)
	tr := dt.tuned
	require.NotNil(t, tr)
	assert.True(t, tr.ForceAttemptHTTP2)
	assert.Equal(t, MaxIdleConnsPerHost, tr.MaxIdleConnsPerHost)
	assert.GreaterOrEqual(t, MaxIdleConnsPerHost, 64)
	assert.GreaterOrEqual(t, tr.MaxIdleConns, 4*MaxIdleConnsPerHost)
	assert.Zero(t, tr.MaxConnsPerHost, "no cap on requests in flight")
	assert.NotNil(t, tr.Proxy, "the proxy from the environment, as http.DefaultTransport")
	assert.NotSame(t, http.DefaultTransport, tr, "a clone: http.DefaultTransport is left as it is")
	assert.Zero(t, http.DefaultTransport.(*http.Transport).MaxIdleConnsPerHost, "http.DefaultTransport keeps its 2")
}

// TestTuneHTTP2: a tuned transport speaks HTTP/2 to a server that offers
// it, even with its own TLS settings (which turn HTTP/2 off without
// ForceAttemptHTTP2).
func TestTuneHTTP2(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.Proto)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		tune bool
		want string
	}{{false, "HTTP/1.1"}, {true, "HTTP/2.0"}} {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.ForceAttemptHTTP2 = false
		tr.TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
		if tc.tune {
			tune(tr)
		}
		resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		tr.CloseIdleConnections()
		assert.Equal(t, tc.want, string(body), "tuned: %v", tc.tune)
	}
}

// TestDefaultClientFollowsReplacedDefaultTransport: a program that swaps
// http.DefaultTransport for a mock is served by the mock, as with
// http.DefaultClient.
func TestDefaultClientFollowsReplacedDefaultTransport(t *testing.T) {
	c := DefaultClient()
	orig := http.DefaultTransport
	t.Cleanup(func() { http.DefaultTransport = orig })
	http.DefaultTransport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("mocked")), Request: r}, nil
	})
	resp, err := c.Get("http://mock.invalid/")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, "mocked", string(body))
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
