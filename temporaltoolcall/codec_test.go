package temporaltoolcall

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
)

// reverseCodec stands for an encrypting codec: it reverses each payload's
// bytes, so that no text of a conversation stays readable.
type reverseCodec struct{}

func reversed(b []byte) []byte {
	out := slices.Clone(b)
	slices.Reverse(out)
	return out
}

func (reverseCodec) Encode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(ps))
	for i, p := range ps {
		b, err := p.Marshal()
		if err != nil {
			return nil, err
		}
		out[i] = &commonpb.Payload{Metadata: map[string][]byte{converter.MetadataEncoding: []byte("binary/reversed")}, Data: reversed(b)}
	}
	return out, nil
}

func (reverseCodec) Decode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(ps))
	for i, p := range ps {
		if string(p.Metadata[converter.MetadataEncoding]) != "binary/reversed" {
			out[i] = p
			continue
		}
		q := &commonpb.Payload{}
		if err := q.Unmarshal(reversed(p.Data)); err != nil {
			return nil, err
		}
		out[i] = q
	}
	return out, nil
}

// codecOptions are the converters of the package documentation's setup:
// the payloads through the codec, and failures too, their messages
// included.
func codecOptions() (converter.DataConverter, converter.FailureConverter) {
	dc := converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), reverseCodec{})
	fc := temporal.NewDefaultFailureConverter(temporal.DefaultFailureConverterOptions{DataConverter: dc, EncodeCommonAttributes: true})
	return dc, fc
}

// TestNothingPlainReachesTheServer: with the codec setup of the package
// documentation on the worker and the starter, a conversation that fails
// leaves none of its text readable in the server's history: not the
// prompt, not the fatal error's text in the failure's message, not the
// Response so far in the failure's details; and the starter still gets
// the error, its sentinel and the Response. Without the setup, the same
// conversation shows both (the test can fail).
func TestNothingPlainReachesTheServer(t *testing.T) {
	hostport, ns := server(t)
	for _, encoded := range []bool{true, false} {
		t.Run(fmt.Sprint("encoded=", encoded), func(t *testing.T) {
			opts := client.Options{HostPort: hostport, Namespace: ns, Logger: quietLogger()}
			var env []string
			if encoded {
				opts.DataConverter, opts.FailureConverter = codecOptions()
				env = append(env, envCodec+"=1")
			}
			c, err := client.Dial(opts)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			queue := fmt.Sprint("codec-", encoded)
			startWorker(t, queue, filepath.Join(t.TempDir(), "runs"), env...)
			id := fmt.Sprint("codec-", encoded, "-", time.Now().UnixNano())
			run := start(t, c, id, queue, engineInput("abort 100 PLAIN-PROMPT-MARK"))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			resp, err := Result(ctx, run)
			if !errors.Is(err, toolcall.ErrFatal) {
				t.Fatalf("error %v, want ErrFatal", err)
			}
			if encoded && (resp == nil || len(resp.Executions) != 2) {
				t.Fatalf("the starter's Response %+v, want the round's two executions", resp)
			}
			h, _ := historyOf(t, c, id, run.GetRunID())
			// The text form shows payloads' bytes as they are stored.
			raw := h.String()
			for _, mark := range []string{"PLAIN-PROMPT-MARK", "PLAIN-FATAL-MARK", "step 1 done"} {
				if shown := strings.Contains(raw, mark); shown == encoded {
					t.Errorf("%s readable in the history: %v", mark, shown)
				}
			}
		})
	}
}
