// Package ollama is a [chat.Model] for Ollama's native chat API
// (POST /api/chat). It uses net/http only; it does not import Ollama's Go
// module, whose dependencies are heavy.
//
//	model := ollama.New(ollama.Config{Model: "qwen2.5"})
//	client := toolcall.NewClient(model)
//	resp, err := client.Prompt("What's the weather in Paris?").Tools(weather).Call(ctx)
//
// The server is Config.BaseURL, else $OLLAMA_HOST, else
// http://localhost:11434. For Ollama's OpenAI-compatible /v1 endpoint use
// package providers/openai instead.
//
// # Requests
//
// Messages keep their roles. An assistant message's tool calls are sent with
// their arguments as a JSON object, as Ollama requires: empty or null
// arguments become {}, and so do arguments that are not a JSON object (a
// model's malformed call replayed from history). A tool message carries
// tool_name and, when known, tool_call_id; Message.IsError has no Ollama
// equivalent and is not sent.
//
// Options map to Ollama's "options": Temperature to temperature, TopP to
// top_p, Seed to seed, Stop to stop and MaxTokens to num_predict. Other
// keys of Options.Extra (num_ctx, top_k, repeat_penalty...) are sent as
// they are, merged over Config.Options; the typed fields win over Extra and
// Extra wins over Config. The keys "format", "think" and "keep_alive" are
// request fields, not options, and are sent as such, overriding Config.
//
// Ollama has no tool_choice. [chat.ToolChoiceNone] is honoured by not
// offering the tools; "required" and a named tool cannot be enforced and
// are ignored. ParallelToolCalls and Definition.Strict are ignored too.
//
// # Tool schemas
//
// Ollama accepts any JSON Schema but decodes it into its own narrow type
// before the model's chat template sees it, keeping type, description,
// properties, required, enum, items and $defs. Keywords such as
// additionalProperties, format, minimum, maximum, pattern, const, default
// and oneOf are dropped silently, and so is a nested $ref (the property
// becomes {}); a top-level $ref becomes an object without properties.
// Schemas from [toolcall.SchemaFor] inline nested types, so they survive
// this. Ollama does not constrain the model's output to the schema either:
// a call may lack required fields. The toolcall library validates
// arguments against the full schema before a tool runs and reports
// violations to the model, so the dropped rules still hold.
//
// # Typed answers
//
// The Model is a [chat.StructuredModel]: a request's Output (a typed answer
// asked for with toolcall's Prompt.Answer) goes out as format, the schema
// itself, at the top level of the /api/chat body, as Ollama documents
// structured outputs; Options.Extra["format"] beside it is refused. This
// native mode is the default; Ollama has no strict flag. With
// Prompt.AnswerMode(chat.OutputTool) the answer is instead a call of the
// tool final_answer, offered in tools beside the others, and no format;
// Ollama has no tool_choice, so a reply in text is sent back as a repair.
//
// # Responses
//
// Ollama sends tool call arguments as a JSON object; they become JSON text
// with the server's key order. Servers before late 2025 (ollama#12956)
// send no call ids; missing ids are synthesised as "call_<index>", and a
// repeated id gets a "_<n>" suffix, so every call of a reply has its own id
// and tool results can be matched to calls. A reply with
// tool calls finishes with [chat.FinishToolCalls] (Ollama says "stop")
// unless it was cut short: done_reason "length" becomes
// [chat.FinishLength], with or without calls, and a Client does not run
// the calls of such a reply ([toolcall.ErrReplyCut]). Usage comes from
// prompt_eval_count and eval_count. The message's "thinking" becomes
// Message.Reasoning, and an assistant message's Reasoning is sent back as
// "thinking" in later requests.
//
// # Streaming
//
// Stream reads the NDJSON lines as they arrive and yields one
// [chat.Delta] per text piece. Ollama sends each tool call whole
// in one line, so a call is yielded as a single [chat.ToolCallDelta]
// with its index, id, name and complete arguments; calls in later lines are
// appended after earlier ones. Thinking text is joined into the reply's
// Message.Reasoning and not yielded. The reply is complete at the line with
// "done": true; a stream that ends without one is an error wrapping
// [chat.ErrBadResponse].
//
// # Errors
//
// Every error is a [*chat.ProviderError] with Provider "ollama", the
// HTTP status and the server's "error" message, except [chat.ErrStreamStopped].
// A model whose template has no tool support (HTTP 400 "... does not
// support tools") wraps [chat.ErrToolsNotSupported]; an unknown model
// (HTTP 404 whose message names the model) wraps [chat.ErrModelNotFound]
// and suggests `ollama pull`. Any other 404 means BaseURL is not an
// Ollama server and wraps [chat.ErrBadRequest]. An {"error": ...} line
// inside a stream is an error too. A body that is not the JSON expected, a
// body or stream cut off (the read error, such as io.ErrUnexpectedEOF,
// stays in the chain) and a reply larger than the response limit wrap
// [chat.ErrBadResponse]. A BaseURL that cannot be used wraps
// [chat.ErrBadRequest], and no request is sent. RequestID is the
// request-id or x-request-id header a proxy may add. A cancelled context
// ends a call promptly, and the error wraps ctx.Err().
//
// Each error and each reply says how many requests the call made, retries
// included: [chat.ProviderError].Attempts and [chat.Response].Attempts,
// which the loop's hooks see in ModelCall.Err and ModelCall.Response. The
// error's other fields describe the last request; its message ends in
// "(3 attempts)" when there was more than one.
//
// # Response limit
//
// A reply is read into memory, so its size is bounded: by
// Config.MaxResponseBytes, 32 MiB when it is 0, which is millions of
// tokens. For a reply that is not streamed the limit is on the body,
// refused unread when its Content-Length is larger; for a stream, on the
// text, thinking and tool calls it assembles (their ids, names and
// arguments, and 256 bytes for each call, about what it takes in memory),
// since the JSON around each piece can be several times its size. A body
// or line of many tiny JSON values is refused before it is decoded
// (Config.MaxResponseBytes says how). A larger reply ends
// the call with an error wrapping [chat.ErrBadResponse] that names the
// limit, and reading it took memory for about the limit, not for the
// whole body. A negative Config.MaxResponseBytes, such as
// [toolcall.NoLimit], removes the limit, as NoLimit does for the
// library's other limits. Each line of a stream is bounded to eight times
// the limit, at least 1 MiB and at most 16 MiB; a whole JSON body sent in
// answer to a stream, to the limit, as any body.
//
// # Retries
//
// A request that fails with status 408, 409, 429 or 5xx (Ollama answers
// 503 when its queue is full, OLLAMA_MAX_QUEUE), or with a connection
// error before any byte of a response (refused, reset, closed by the
// server), is sent again, up to Config.MaxRetries times:
// [DefaultMaxRetries] (2, so three requests at most) when it is 0, none
// with [NoRetries] or any negative value. Other 4xx (an unknown model, a
// model without tools) are not retried, nor is a timeout after the request
// went out, a certificate error or an unknown host. The wait before retry n
// is 0.5 s·2^(n-1), at most 8 s, less a random jitter of up to a quarter;
// a server's Retry-After (seconds or an HTTP date; retry-after-ms, which
// a proxy in front of OpenAI's API may send, wins) replaces it, up to
// 30 s. A wait that would outlast the context's deadline is not begun: the
// call ends with the server's error at once. Cancelling the context ends a
// wait at once, with an error that wraps both ctx.Err() and the last
// failure's sentinel.
//
// Only the request is retried, until the status line and headers of a 2xx
// response arrive; nothing of a reply has been read then. Once they have,
// the call is never retried: a stream cut after its first line ends in an
// error after the caller got its delta, and a body cut short ends in an
// error too.
//
// # Connections
//
// With Config.HTTPClient nil, requests go through one client shared by all
// models of this package and of providers/openai. Its transport is a clone
// of http.DefaultTransport (proxy from the environment, its dial and TLS
// timeouts) that keeps up to 100 idle connections per server, where
// http.DefaultTransport keeps 2, and speaks HTTP/2 where the server
// offers it. The number of requests in flight is not capped, and the
// client has no Timeout. So up to 100 calls at a time reuse their
// connections: 4,000 calls 32 at a time open about 32 connections, where
// http.DefaultClient opened up to 1,599. A program that replaced
// http.DefaultTransport is served by its transport.
//
// To set your own limits, give a client of your own, e.g.
//
//	tr := http.DefaultTransport.(*http.Transport).Clone()
//	tr.ForceAttemptHTTP2 = true
//	tr.MaxIdleConnsPerHost = 256 // at least the calls you run at a time
//	model := ollama.New(ollama.Config{Model: "qwen2.5", HTTPClient: &http.Client{Transport: tr}})
package ollama
