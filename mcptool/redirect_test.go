package mcptool_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/mcptool"
)

// TestRedirectShowsNoPath: a hosted server at a secret path that
// redirects to the same path with a trailing slash (as Starlette-based
// servers do for "/mcp" -> "/mcp/"): net/http follows the redirect with
// the real path, and an error of that request quotes it in full.
// TestRedirectShowsNoPath: a server that redirects its endpoint to a
// path below it (/token/mcp to /token/mcp/) is followed there, and an
// error after the redirect shows the path no more than one before it.
func TestRedirectShowsNoPath(t *testing.T) {
	const secret = "sk-live-SECRET123"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/") {
			http.Redirect(w, r, r.URL.Path+"/", http.StatusTemporaryRedirect)
			return
		}
		// The redirected request fails at the transport level.
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	}))
	t.Cleanup(srv.Close)
	_, err := mcptool.Connect(context.Background(), mcptool.Remote{URL: srv.URL + "/" + secret + "/mcp", HTTPClient: ownConnections(t)})
	if err == nil {
		t.Fatal("connected")
	}
	if strings.Contains(err.Error(), secret) {
		t.Fatalf("the error shows the endpoint's path: %v", err)
	}
}

// TestRedirectBelowTheEndpointIsFollowed: the redirect reaches the real
// path below the endpoint, where the server answers.
func TestRedirectBelowTheEndpointIsFollowed(t *testing.T) {
	h := sdkHandler(t)
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		if r.URL.Path == "/t/sk-live-SECRET123/mcp" {
			http.Redirect(w, r, r.URL.Path+"/", http.StatusTemporaryRedirect)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c := connect(t, mcptool.Remote{URL: srv.URL + "/t/sk-live-SECRET123/mcp", HTTPClient: ownConnections(t)})
	tools, err := c.Tools(context.Background(), nil)
	if err != nil || len(tools) == 0 {
		t.Fatalf("tools %v, error %v", tools, err)
	}
	if paths[len(paths)-1] != "/t/sk-live-SECRET123/mcp/" {
		t.Fatalf("paths the server saw: %v", paths)
	}
}
