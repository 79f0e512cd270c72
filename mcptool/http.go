package mcptool

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// parseEndpoint parses a server's URL. Its error never holds the URL,
// which may carry credentials.
func parseEndpoint(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("does not parse: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, errors.New("must be an http or https URL with a host")
	}
	u.Fragment, u.RawFragment = "", "" // never sent
	return u, nil
}

// public is the URL that names a server: scheme and host, without the
// user, password, path and query, any of which may be a credential
// (hosted servers often put a token in the path).
func public(u *url.URL) string {
	if u == nil {
		return ""
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
}

// hiddenPath stands for the endpoint's path in the URL the go-sdk and
// net/http know, so that none of their errors shows the real one; the
// transport puts the real path back on the way out.
const hiddenPath = "/path-hidden"

// masked is the endpoint as the go-sdk knows it: scheme, host and, when
// the endpoint has a path ("/" too), hiddenPath.
func masked(u *url.URL) string {
	m := &url.URL{Scheme: u.Scheme, Host: u.Host}
	if u.Path != "" {
		m.Path = hiddenPath
	}
	return m.String()
}

// origin is a URL's scheme, host and port, the port spelled out.
func origin(u *url.URL) string {
	scheme, port := strings.ToLower(u.Scheme), u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// httpTransport carries the requests of a server given by URL. To the
// endpoint's origin it adds the configured header (and the URL's user and
// password as basic authentication when the header has no Authorization);
// to the endpoint itself, the URL's query, which the go-sdk never sees. A
// request to another origin, as a redirect makes, gets none of them.
//
// It also reads the TypeScript SDK servers' answer to an unknown session
// as the 404 that the protocol asks for, so that the go-sdk reports
// mcp.ErrSessionMissing. Those servers answer 400 instead: to a POST with
// the JSON-RPC error "Bad Request: No valid session ID provided" (whose id
// is null, so the go-sdk drops it and reports only "Bad Request"), to a GET
// or DELETE with the text "Invalid or missing session ID". Only a request
// that carried a session id is read so; any other answer passes unchanged.
//
// A 401 becomes an error saying which headers to set: the go-sdk would
// report only "Unauthorized".
type httpTransport struct {
	base     http.RoundTripper
	header   http.Header
	endpoint *url.URL
	origin   string // the endpoint's
}

func (t *httpTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	home := origin(r.URL) == t.origin
	if home {
		r = r.Clone(r.Context())
		for k, vs := range t.header {
			r.Header[k] = slices.Clone(vs)
		}
		if u := t.endpoint.User; u != nil && r.Header.Get("Authorization") == "" {
			pass, _ := u.Password()
			r.SetBasicAuth(u.Username(), pass)
		}
		if rest, ok := strings.CutPrefix(r.URL.Path, hiddenPath); ok && (rest == "" || rest[0] == '/') || r.URL.Path == t.endpoint.Path {
			// A copy of the URL: the caller's keeps the masked path, which
			// is what net/http's errors quote. A path below it (a
			// redirect's, see below) keeps what follows.
			u := *r.URL
			u.Path, u.RawPath = strings.TrimSuffix(t.endpoint.Path, "/")+rest, ""
			if rest == "" {
				u.Path, u.RawPath = t.endpoint.Path, t.endpoint.RawPath
			}
			if u.RawQuery == "" {
				u.RawQuery = t.endpoint.RawQuery
			}
			r.URL = &u
		}
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if home {
		t.maskRedirect(r.URL, resp)
	}
	if resp.StatusCode == http.StatusUnauthorized {
		resp.Body.Close()
		return nil, t.unauthorized(home)
	}
	if resp.StatusCode != http.StatusBadRequest || r.Header.Get("Mcp-Session-Id") == "" {
		return resp, nil
	}
	head, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	text := strings.ToLower(string(head))
	if !strings.Contains(text, "no valid session id") && !strings.Contains(text, "invalid or missing session id") {
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
		return resp, nil
	}
	resp.Body.Close()
	// An empty body: the go-sdk reads a JSON-RPC error with an id in the
	// body before the status.
	resp.StatusCode, resp.Status = http.StatusNotFound, "404 Not Found"
	resp.Body, resp.ContentLength = http.NoBody, 0
	resp.Header.Del("Content-Length")
	return resp, nil
}

// maskRedirect rewrites a redirect to the endpoint's path, or below it
// (/token/mcp to /token/mcp/, as many servers answer), to the masked
// path, so that net/http follows it with a URL that shows neither the path
// nor the query; RoundTrip puts them back.
func (t *httpTransport) maskRedirect(from *url.URL, resp *http.Response) {
	loc := resp.Header.Get("Location")
	if loc == "" || resp.StatusCode < 300 || resp.StatusCode > 399 || t.endpoint.Path == "" || t.endpoint.Path == "/" {
		return
	}
	to, err := from.Parse(loc)
	if err != nil || origin(to) != t.origin {
		return
	}
	rest, ok := strings.CutPrefix(to.Path, strings.TrimSuffix(t.endpoint.Path, "/"))
	if !ok || rest != "" && rest[0] != '/' {
		return
	}
	to.Path, to.RawPath = hiddenPath+rest, ""
	if to.RawQuery == t.endpoint.RawQuery {
		to.RawQuery = ""
	}
	resp.Header.Set("Location", to.String())
}

// unauthorized says what to do about a 401. It names the headers sent,
// never their values.
func (t *httpTransport) unauthorized(home bool) error {
	const status = "the server answered 401 Unauthorized"
	switch {
	case !home:
		return fmt.Errorf("%s after a redirect to another origin, to which Remote.Header is not sent", status)
	case len(t.header) == 0:
		return fmt.Errorf(`%s: set the credentials it expects in Remote.Header, e.g. "Authorization: Bearer <token>"`, status)
	}
	names := slices.Sorted(maps.Keys(t.header))
	return fmt.Errorf("%s to the Remote.Header sent (%s): set the credentials it expects there", status, strings.Join(names, ", "))
}

type readCloser struct {
	io.Reader
	io.Closer
}
