package chat_test

import (
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"
)

func TestProviderErrorMessage(t *testing.T) {
	for _, tc := range []struct {
		err  chat.ProviderError
		want string
	}{
		{chat.ProviderError{Provider: "openai", StatusCode: 503, Model: "m", Message: "busy", Err: chat.ErrServer},
			`openai: HTTP 503: model "m": server error: busy`},
		{chat.ProviderError{Provider: "openai", StatusCode: 503, Message: "busy", Attempts: 1, Err: chat.ErrServer},
			`openai: HTTP 503: server error: busy`},
		{chat.ProviderError{Provider: "openai", StatusCode: 503, Message: "busy", Attempts: 3, Err: chat.ErrServer},
			`openai: HTTP 503: server error: busy (3 attempts)`},
		{chat.ProviderError{Provider: "ollama", StatusCode: 429, RetryAfter: 7 * time.Second, Err: chat.ErrRateLimited},
			`ollama: HTTP 429: rate limited (retry after 7s)`},
		{chat.ProviderError{Provider: "ollama", StatusCode: 429, RetryAfter: 7 * time.Second, Attempts: 3, Err: chat.ErrRateLimited},
			`ollama: HTTP 429: rate limited (retry after 7s, 3 attempts)`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
