package providertest

import (
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// AddSeeds adds every recording under testdata whose file name ends in
// suffix (".response.json", ".response.sse.txt") as a seed of f: those of
// the local servers and those of the cloud API (testdata/cloud), of which
// there must be one.
func AddSeeds(f *testing.F, suffix string) {
	f.Helper()
	cloud := 0
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, suffix) {
			return err
		}
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f.Add(body)
		if strings.HasPrefix(path, filepath.Join("testdata", "cloud")) {
			cloud++
		}
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	if cloud == 0 {
		f.Fatalf("no recording of the cloud API ends in %s", suffix)
	}
}

// ReplyingClient returns an HTTP client that answers every request with
// status 200 and body, of content type ctype, without a network: for
// fuzzing a provider's reading of a reply.
func ReplyingClient(ctype string, body []byte) *http.Client {
	return &http.Client{Transport: replying{ctype, body}}
}

type replying struct {
	ctype string
	body  []byte
}

func (r replying) RoundTrip(req *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, req.Body)
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {r.ctype}},
		Body:    io.NopCloser(strings.NewReader(string(r.body))),
		Request: req,
	}, nil
}
