package providertest

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/chat"
)

// A MetadataCase is a reply, whole or streamed, whose metadata (model,
// finish reason, role) is long or at the bound.
type MetadataCase struct {
	Name    string
	Stream  bool
	Body    string
	Model   string // the reply's Model, when it is read
	WantErr string // the message of the malformed reply; empty: read
}

// CheckMetadata sends each case's reply, served with the content type of
// a whole reply (application/json) or of a stream (streamType), to the
// model that model returns for a client, and checks that it is refused
// as malformed with WantErr, or read with its Model: a metadata string
// longer than 1 KiB is refused rather than kept uncounted.
func CheckMetadata(t *testing.T, streamType string, model func(*http.Client) chat.StreamingModel, cases []MetadataCase) {
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			ctype := "application/json"
			if tc.Stream {
				ctype = streamType
			}
			m := model(ReplyingClient(ctype, []byte(tc.Body)))
			req := &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}
			var resp *chat.Response
			var err error
			if tc.Stream {
				resp, err = m.Stream(context.Background(), req, nil)
			} else {
				resp, err = m.Chat(context.Background(), req)
			}
			if tc.WantErr == "" {
				require.NoError(t, err)
				assert.Equal(t, tc.Model, resp.Model)
				return
			}
			var pe *chat.ProviderError
			require.True(t, errors.As(err, &pe), "err = %v", err)
			assert.ErrorIs(t, err, chat.ErrBadResponse)
			assert.Equal(t, tc.WantErr, pe.Message)
		})
	}
}
