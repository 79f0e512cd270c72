package ollama

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/internal/retry"
)

// DefaultBaseURL is the server used when neither Config.BaseURL nor
// OLLAMA_HOST is set.
const DefaultBaseURL = "http://localhost:11434"

// defaultPort is Ollama's port, added to a host given without scheme or port,
// as the ollama CLI does for OLLAMA_HOST.
const defaultPort = "11434"

// Config configures a [Model]. Every field is optional; the zero value
// talks to the local server and requires Request.Model on each request.
type Config struct {
	// BaseURL is the server's address, e.g. "http://gpu-box:11434". Empty
	// means $OLLAMA_HOST, read by [New], else [DefaultBaseURL]. Either may
	// be "host:port" or "host" without a scheme, as the ollama CLI accepts.
	BaseURL string
	// Model is the model name, e.g. "qwen2.5". Request.Model overrides it.
	Model string
	// HTTPClient sends the requests. Nil means a client shared by the
	// models of both providers, which keeps up to 100 idle connections per
	// server and uses HTTP/2 where the server offers it (see "Connections"
	// in the package documentation). Leave its Timeout zero for streaming
	// and bound calls with the context instead.
	HTTPClient *http.Client
	// MaxRetries is how many times a request that failed with status 408,
	// 409, 429 or 5xx, or whose connection failed before any response,
	// is sent again (see "Retries" in the package documentation). 0 means
	// [DefaultMaxRetries]; [NoRetries], or any negative value, turns
	// retries off.
	MaxRetries int
	// MaxResponseBytes bounds a reply: the body of a reply that is not
	// streamed, and the text, thinking and tool-call arguments a stream
	// assembles. A larger reply ends the call with an error that wraps
	// [chat.ErrBadResponse] and names the limit. 0 means 32 MiB; a
	// negative value, such as [toolcall.NoLimit], removes the limit. Each
	// line of a stream is bounded to eight times the limit, at least
	// 1 MiB and at most 16 MiB.
	// A body or stream line whose JSON values would take more than the
	// limit, or 1 MiB if that is more, to decode (256 bytes an array
	// element, 32 an object member; a byte that is not UTF-8, the three it
	// decodes to) is refused before it is decoded. A reply whose model, role
	// or done_reason is longer than 1 KiB is malformed.
	MaxResponseBytes int
	// KeepAlive is how long the server keeps the model loaded after a
	// request: a duration such as "10m", or a number of seconds ("0"
	// unloads at once, "-1" keeps it loaded). Empty means the server's
	// default.
	KeepAlive string
	// Think, when set, turns the model's thinking on or off. The thinking
	// text is returned in the reply's Message.Reasoning (not streamed as
	// deltas) and sent back with the message in later requests.
	Think *bool
	// Options are default model options sent in "options", such as
	// "num_ctx"; a request's options win over them.
	Options map[string]any
}

// Retry settings for Config.MaxRetries.
const (
	// DefaultMaxRetries is the number of retries when Config.MaxRetries
	// is 0: up to three requests in all.
	DefaultMaxRetries = retry.DefaultMaxRetries
	// NoRetries turns retries off: every call makes one request.
	NoRetries = -1
)

// A Model is an Ollama model served over /api/chat. It implements
// [chat.Model] and [chat.StreamingModel].
//
// A Model is safe for concurrent use by multiple goroutines; it holds no
// per-request state.
type Model struct {
	ep        httpline.Endpoint // URL is BaseURL + "/api/chat"
	base      string
	model     string
	keepAlive any
	think     *bool
	options   map[string]any
}

var (
	_ chat.Model          = (*Model)(nil)
	_ chat.StreamingModel = (*Model)(nil)
)

// New returns a Model for cfg. It does no I/O: an unreachable server or an
// unknown model is reported by the first request.
func New(cfg Config) *Model {
	base := hostURL(httpline.Setting(cfg.BaseURL, "OLLAMA_HOST", DefaultBaseURL))
	var think *bool
	if cfg.Think != nil {
		t := *cfg.Think
		think = &t
	}
	m := &Model{
		base:      base,
		model:     cfg.Model,
		keepAlive: keepAliveValue(cfg.KeepAlive),
		think:     think,
		options:   maps.Clone(cfg.Options), // the caller may change its map later
	}
	m.ep = httpline.Endpoint{
		Provider:    providerName,
		URL:         base + "/api/chat",
		Client:      cfg.HTTPClient,
		Retry:       retry.Policy{MaxRetries: cfg.MaxRetries},
		Limit:       httpline.ResponseLimit(cfg.MaxResponseBytes),
		ParseError:  m.parseError,
		Unreachable: "cannot connect to Ollama at " + base + "; is it running (ollama serve)?",
	}
	return m
}

// hostURL turns the server's address, given as the ollama CLI takes
// OLLAMA_HOST, into a URL: a bare "host[:port][/path]" becomes an http URL
// with Ollama's port unless it has one, and trailing slashes are dropped.
func hostURL(s string) string {
	if !strings.Contains(s, "://") {
		hostport, path, _ := strings.Cut(s, "/")
		host, port, err := net.SplitHostPort(hostport)
		if err != nil {
			host, port = strings.Trim(hostport, "[]"), defaultPort
		}
		if host == "" {
			host = "localhost"
		}
		s = "http://" + net.JoinHostPort(host, port)
		if path != "" {
			s += "/" + path
		}
	}
	return strings.TrimRight(s, "/")
}

// keepAliveValue sends a number of seconds as a JSON number: Ollama parses
// a string with time.ParseDuration, which rejects "-1" and "0".
func keepAliveValue(s string) any {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	return s
}

// StructuredOutput reports true: Request.Output's schema goes out as
// Ollama's format.
func (m *Model) StructuredOutput() bool { return true }

// Chat sends req with "stream": false and returns the reply. It does not
// modify req. Errors are [*chat.ProviderError] values; see the package
// documentation. The reply's Attempts, or the error's, is the number of
// requests sent.
func (m *Model) Chat(ctx context.Context, req *chat.Request) (*chat.Response, error) {
	body, model, err := m.encode(req, false)
	if err != nil {
		return nil, err
	}
	return m.ep.Call(ctx, model, "application/json", body, decode)
}

// decode reads a reply that is not streamed.
func decode(ctx context.Context, rep *httpline.Reply) (*chat.Response, error) {
	data, err := rep.ReadAll(ctx)
	if err != nil {
		return nil, err
	}
	var wr chatResponse
	if err := json.Unmarshal(data, &wr); err != nil {
		return nil, rep.BadResponse("response is not valid JSON: " + jsonProblem(err))
	}
	if wr.Error != "" {
		return nil, inBandError(rep, wr.Error)
	}
	if !wr.Done {
		return nil, rep.BadResponse(`response has no "done": true`)
	}
	if err := metadata(rep, &wr); err != nil {
		return nil, err
	}
	var a assembler
	a.addMessage(&wr.Message)
	return a.response(&wr), nil
}

// Stream sends req with "stream": true, yields each text piece and each
// tool call as its NDJSON line arrives, and returns the reply assembled as
// Chat would return it. If yield returns false, Stream closes the
// connection and returns [chat.ErrStreamStopped]. A nil yield is
// allowed.
//
// Requests are retried only until a 2xx response arrives: once the stream
// has begun, a failure ends the call and no request is sent again.
func (m *Model) Stream(ctx context.Context, req *chat.Request, yield func(chat.Delta) bool) (*chat.Response, error) {
	body, model, err := m.encode(req, true)
	if err != nil {
		return nil, err
	}
	return m.ep.Stream(ctx, model, "application/x-ndjson", body, yield, read, nil)
}

// read reads the lines of a stream into the reply.
func read(ctx context.Context, rep *httpline.Reply, yield func(chat.Delta) bool) (*chat.Response, error) {
	lines := rep.Lines()
	limit := rep.Limit()
	var a assembler
	var size int64 // of the text, thinking and arguments, for the limit
	for {
		line, readErr := lines.Next()
		if readErr != nil && readErr != io.EOF {
			return nil, rep.ReadError(ctx, "stream", readErr)
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			var wr chatResponse
			if err := json.Unmarshal(line, &wr); err != nil {
				return nil, rep.BadResponse("stream line is not valid JSON: " + jsonProblem(err))
			}
			if wr.Error != "" {
				return nil, inBandError(rep, wr.Error)
			}
			if err := metadata(rep, &wr); err != nil {
				return nil, err
			}
			size += int64(len(wr.Message.Content) + len(wr.Message.Thinking))
			for _, c := range wr.Message.ToolCalls {
				size += httpline.ItemCost + int64(len(c.ID)+len(c.Function.Name)+len(c.Function.Arguments))
			}
			if limit >= 0 && size > limit {
				return nil, rep.TooLarge("streamed reply")
			}
			// Thinking has no delta of its own: it is in the returned reply.
			a.thinking = httpline.AppendText(a.thinking, wr.Message.Thinking, limit)
			if wr.Message.Content != "" {
				a.content = httpline.AppendText(a.content, wr.Message.Content, limit)
				if !yield(chat.Delta{Content: wr.Message.Content}) {
					return nil, chat.ErrStreamStopped
				}
			}
			for _, c := range wr.Message.ToolCalls {
				i, tc := a.addCall(c)
				d := &chat.ToolCallDelta{Index: i, ID: tc.ID, Name: tc.Name, Arguments: string(tc.Arguments)}
				if !yield(chat.Delta{ToolCall: d}) {
					return nil, chat.ErrStreamStopped
				}
			}
			if wr.Done {
				// Not waiting for EOF: a proxy may hold the connection open.
				return a.response(&wr), nil
			}
		}
		if readErr == io.EOF {
			return nil, rep.BadResponse(`stream ended without a "done": true line`)
		}
	}
}

// metadata returns an error when the reply's or line's model, role or
// done_reason is longer than a reply's metadata may be
// (httpline.MaxMetadata).
func metadata(rep *httpline.Reply, wr *chatResponse) error {
	return cmp.Or(rep.Metadata("model", wr.Model), rep.Metadata("role", wr.Message.Role),
		rep.Metadata("done_reason", wr.DoneReason))
}
