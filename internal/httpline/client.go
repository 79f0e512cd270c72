package httpline

import (
	"net/http"
	"sync"
)

// MaxIdleConnsPerHost is how many idle connections [DefaultClient] keeps
// open to one server for the next requests. Go's default transport keeps 2,
// so that beyond 2 calls at a time most calls open a new connection (4,000
// calls 32 at a time opened 1,599 TCP connections to a loopback server).
const MaxIdleConnsPerHost = 100

// maxIdleConns bounds the idle connections to all servers together.
const maxIdleConns = 4 * MaxIdleConnsPerHost

// DefaultClient returns the client the providers use when Config.HTTPClient
// is nil, one for all models so that they share connections. Its transport
// is a clone of [http.DefaultTransport] (proxy from the environment, dial
// and TLS handshake timeouts) with ForceAttemptHTTP2, so that HTTP/2 is
// used where a TLS server offers it, and [MaxIdleConnsPerHost] idle
// connections kept per host. It sets no MaxConnsPerHost and no Timeout:
// any number of requests may be in flight, and contexts bound calls.
//
// A program that replaced http.DefaultTransport (a recorder or a mock)
// before or after the first call is served by its transport, as it was
// when the providers used http.DefaultClient.
var DefaultClient = sync.OnceValue(func() *http.Client {
	orig := http.DefaultTransport
	dt := &defaultTransport{orig: orig}
	if t, ok := orig.(*http.Transport); ok {
		dt.tuned = tune(t.Clone())
	}
	return &http.Client{Transport: dt}
})

// tune sets on t what DefaultClient's transport has and returns t:
// ForceAttemptHTTP2, MaxIdleConnsPerHost, and room for at least
// 4·MaxIdleConnsPerHost idle connections in all.
func tune(t *http.Transport) *http.Transport {
	t.ForceAttemptHTTP2 = true
	t.MaxIdleConnsPerHost = MaxIdleConnsPerHost
	if t.MaxIdleConns != 0 { // 0 is no limit
		t.MaxIdleConns = max(t.MaxIdleConns, maxIdleConns)
	}
	return t
}

// A defaultTransport sends with the tuned clone of http.DefaultTransport,
// unless the program has replaced http.DefaultTransport since.
type defaultTransport struct {
	orig  http.RoundTripper
	tuned *http.Transport // nil when http.DefaultTransport was no *http.Transport
}

func (d *defaultTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if cur := http.DefaultTransport; d.tuned == nil || cur != d.orig {
		return cur.RoundTrip(r)
	}
	return d.tuned.RoundTrip(r)
}

// CloseIdleConnections closes the idle connections of the tuned transport
// (http.Client.CloseIdleConnections calls it).
func (d *defaultTransport) CloseIdleConnections() {
	if d.tuned != nil {
		d.tuned.CloseIdleConnections()
	}
}
