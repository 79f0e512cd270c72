// Package anthropic is a [chat.Model] for Anthropic's Messages API
// (POST /v1/messages) and the servers that speak it: Ollama and llama.cpp's
// llama-server serve /v1/messages too.
//
//	model := anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5"}) // key from ANTHROPIC_API_KEY
//	client := toolcall.NewClient(model)
//	resp, err := client.Prompt("What's the weather in Paris?").Tools(weather).Call(ctx)
//
// The key, from Config.APIKey or else ANTHROPIC_API_KEY, is sent in the
// x-api-key header, which the API, Ollama and llama-server all read; with
// no key none is sent. The server is Config.BaseURL, else
// ANTHROPIC_BASE_URL, else https://api.anthropic.com: its root, to which
// the package adds /v1/messages (where other providers want a URL ending
// in /v1). A BaseURL ending in /v1 or /v1/messages is taken as meant; one
// ending in another API's path (/chat/completions, /completions,
// /responses, /api/chat), or with a query, is refused by the first
// request, which says what to set. For a local server, give its root and
// the API version it speaks:
//
//	anthropic.New(anthropic.Config{BaseURL: "http://localhost:11434", Model: "qwen3", Version: anthropic.Version20230601})
//
// # API versions
//
// Requests carry anthropic-version [DefaultVersion], 2026-10-21, unless
// Config.Version says otherwise. That version removed temperature, top_p
// and top_k, which it rejects even at their default values: a request
// with Options.Temperature, Options.TopP, or one of the three in
// Options.Extra, fails with [chat.ErrBadRequest] before it is sent. With
// [Version20230601], the version of the SDK's v1 line and of Ollama and
// llama-server, they are sent.
//
// # Requests
//
// System messages become the top-level "system", as text blocks in their
// order (a system message in the middle of a conversation moves there
// too). Consecutive messages of one role are merged into one turn, as the
// API requires alternating turns. Each message's content is a list of
// blocks: text, tool_use for an assistant's calls (arguments that are
// empty, null or not a JSON object, such as a model's malformed call
// replayed from history, are sent as {}), and tool_result for a tool
// message, with "is_error": true when Message.IsError is set. The results
// of one reply go in one user turn, in the order of the calls, before any
// text of that turn. An empty message is left out; a request with nothing
// left to send is refused.
//
// max_tokens, which the API requires, is Options.MaxTokens, else
// Config.MaxTokens, else [DefaultMaxTokens]. Options.Stop becomes
// stop_sequences. Options.Seed has no equivalent and is refused. The keys
// of Options.Extra are added as top-level fields (metadata, service_tier,
// top_k under 2023-06-01, ...) unless the request already has them; model,
// messages, system, stream, tools, tool_choice and max_tokens cannot be
// set that way.
//
// Tools are sent with their input schema as "input_schema" (an empty or
// null schema becomes {"type":"object","properties":{}}) and "strict":
// true for a strict tool. With Config.PromptCaching, the last tool and
// the last block of the system prompt carry cache_control
// {"type":"ephemeral"}. ToolChoice becomes tool_choice: auto, any
// ("required"), none, or {"type":"tool","name":...} for a named tool,
// which must be one of the request's tools. Options.ParallelToolCalls
// false sends disable_parallel_tool_use inside tool_choice (with auto when
// no mode is set; never with none). tool_choice is sent only with tools.
//
// # Thinking
//
// Thinking is turned on by sending a "thinking" field, from
// Config.Thinking or, for one request, Options.Extra["thinking"], as
// given: {"type":"enabled","budget_tokens":2048}, {"type":"adaptive"},
// or {"type":"disabled"}; an Extra["thinking"] of nil sends no field. With thinking on, the API allows only tool
// choices auto and none: a forced choice is refused before sending.
//
// A reply's thinking text becomes Message.Reasoning (blocks joined by a
// blank line). During tool use the API needs the thinking blocks back,
// signatures included, exactly as it sent them and in their place among
// the text and tool_use blocks. So a reply with a thinking or
// redacted_thinking block (or any block other than text and tool_use)
// keeps all its blocks in Message.ProviderData, as
// {"anthropic_content":[...]}; a reply without such blocks keeps none.
// Keep the assistant message in the history, as the toolcall loop does,
// and the blocks go back as they came (compacted, as the API sends them);
// a call whose name or arguments the caller changed is written from the
// call. If the caller changed the message's text or its calls, the kept
// blocks other than text and tool_use go first, then the text, then the
// calls. Reasoning without ProviderData, such as another provider's,
// cannot be sent back, for want of a signature, and is not sent.
//
// A text block that is empty or only white space is never sent back: the
// API refuses it ("text content blocks must contain non-whitespace
// text"), and models write such blocks (claude-opus-4-6 a "\n\n" before
// its thinking block, others before a call). Message.Content keeps their
// text, as the reply had it.
//
// # Typed answers
//
// With the current API version the Model is a [chat.StructuredModel]: a
// request's Output (a typed answer asked for with toolcall's Prompt.Answer)
// goes out as output_config.format {"type": "json_schema", "schema"}, as the
// recording parallel_tool_use_no_text shows api.anthropic.com taking; the
// answer is the reply's text. This native mode is the default; the format
// has no strict field. [Version20230601], which Ollama and llama-server
// speak, has no output_config: such a Model is not structured and refuses a
// request with Output, so the loop asks through a tool, as
// Prompt.AnswerMode(chat.OutputTool) does with any version: the answer is a
// call of the tool final_answer, offered in tools beside the others, with
// tool_choice {"type": "any"} and no output_config.
//
// # Responses
//
// The reply's text blocks are joined into Message.Content and its
// tool_use blocks become tool calls, with their input as the arguments. A
// call without an id gets "toolu_<index>", and a repeated id a "_<n>"
// suffix, so that results can be matched to calls.
//
// stop_reason tool_use, end_turn and stop_sequence finish with
// [chat.FinishToolCalls] when the reply has calls, else [chat.FinishStop];
// max_tokens and model_context_window_exceeded with [chat.FinishLength],
// and refusal with [chat.FinishFiltered], calls or not: a Client does not
// run the calls of such a reply ([toolcall.ErrReplyCut]). pause_turn,
// which only the API's own server tools cause (this package never offers
// them), and a stop reason this package does not know (or none) on a
// reply with calls are errors wrapping [chat.ErrBadResponse], never
// answers; an
// unknown reason on a reply without calls is passed on as the finish
// reason.
//
// Usage: input_tokens leaves out the prompt tokens read from or written to
// the prompt cache, so PromptTokens is input_tokens +
// cache_read_input_tokens + cache_creation_input_tokens, and the two cache
// counts are also in CacheReadTokens and CacheWriteTokens.
// output_tokens_details.thinking_tokens, part of output_tokens, is
// ReasoningTokens.
//
// # Streaming
//
// Stream sends "stream": true and reads the server-sent events:
// message_start (model, usage), content_block_start, content_block_delta
// and content_block_stop for each block, by index, message_delta (stop
// reason, usage), message_stop, ping and error. Events and deltas this
// package does not know are ignored. text_delta is yielded as it comes;
// a tool_use block is yielded first with its id and name, then its
// input_json_delta fragments, assembled per block index, so calls may
// interleave. A tool_use start's "input" is a placeholder: llama-server
// sends none, Ollama sends {} and then the whole arguments in one
// fragment, and the fragments replace it; a start with arguments and no
// fragments yields them when the block stops. thinking_delta and
// signature_delta build the thinking block, which is not yielded.
// message_delta's usage is cumulative: each count it carries replaces
// message_start's (llama-server sends only output_tokens there; Ollama
// sends input_tokens again, with another value). The reply is complete at
// message_stop, or at the end of a stream after a stop reason; a stream
// that ends before one, or in the middle of an event, is an error wrapping
// [chat.ErrBadResponse] and io.ErrUnexpectedEOF.
//
// # Errors
//
// Every error is a [*chat.ProviderError] with Provider "anthropic", the
// HTTP status, the model, the server's message (never the raw body) and,
// when the server gave one, RequestID from the request-id header (or the
// error body's request_id), except [chat.ErrStreamStopped]. The error's
// type gives its sentinel: invalid_request_error and request_too_large
// [chat.ErrBadRequest]; authentication_error and permission_error
// [chat.ErrUnauthorized]; billing_error, and a 400 that says the credit
// balance is too low, [chat.ErrQuotaExceeded], never retried;
// not_found_error [chat.ErrModelNotFound]; rate_limit_error
// [chat.ErrRateLimited]; api_error, timeout_error and overloaded_error
// [chat.ErrServer]. A type the API adds later goes by its status: 401 and
// 403 unauthorized, 404 model not found, 429 rate limited, 5xx server,
// other 4xx bad request. A 404 is a missing model only when its message
// names one, as the API's does ("model: claude-x"); one that names none
// (the API's "Not Found" for a wrong path, a web server's page) is a
// wrong BaseURL and wraps [chat.ErrBadRequest]. A model that takes no
// tools ("... does not support tools") wraps [chat.ErrToolsNotSupported].
// An error body with status 200 and a stream's error event end the call
// the same way (an unknown type there is a server error). Requests that
// cannot be built wrap [chat.ErrBadRequest] and are not sent. A body that
// is not the format expected wraps [chat.ErrBadResponse]; a cancelled
// context ends a call promptly, and the error wraps ctx.Err().
//
// Each error and each reply says how many requests the call made, retries
// included: [chat.ProviderError].Attempts and [chat.Response].Attempts.
// The API key never appears in an error, nor in the Model's String form:
// it is removed from server messages that echo it and from transport
// errors (keys shorter than 8 bytes, placeholders such as "ollama", are
// not redacted).
//
// # Retries
//
// A request that fails with status 408, 409, 429, 5xx (overloaded_error's
// 529 included), or with a connection error before any byte of a
// response, is sent again, up to Config.MaxRetries times:
// [DefaultMaxRetries] (2) when it is 0, none with [NoRetries]. The wait
// before retry n is 0.5 s·2^(n-1), at most 8 s, less a random jitter of up
// to a quarter; a Retry-After header replaces it, up to 30 s. Once a 2xx
// response has arrived nothing is retried: a stream cut after its first
// delta ends in an error after the caller got that delta.
//
// # Connections and limits
//
// With Config.HTTPClient nil, requests go through the client shared by
// all providers of this module, which keeps up to 100 idle connections per
// server. A reply is bounded by Config.MaxResponseBytes, 32 MiB by
// default: a larger body, or a stream whose text, thinking, signatures,
// arguments and blocks received whole pass the limit, ends the call with
// an error wrapping [chat.ErrBadResponse] that names the limit. Each
// content block also counts 256 bytes, about what is kept for it, so that
// a reply of very many tiny blocks or calls is bounded too.
//
// # Tested against
//
// The tests replay recordings of three servers: llama.cpp's llama-server
// and Ollama (testdata/llamacpp, testdata/ollama) and Anthropic's API
// itself (testdata/cloud/anthropic-messages, recorded by pydantic-ai's
// test suite; testdata/cloud/README.md lists them). Every cloud
// conversation is replayed whole: each next request is built from this
// package's own reply and must be the request the API accepted. What the
// recordings show a client must survive, besides what is said above:
// stream events padded with spaces before their closing brace and pings
// between and inside blocks; a signature that comes whole in one
// signature_delta; redacted_thinking blocks that arrive whole in
// content_block_start, two in a row; a tool_use start with "input":{} and
// a first fragment ""; fields to ignore ("caller" on tool_use,
// stop_details, stop_sequence, usage.cache_creation, inference_geo,
// service_tier); an error's request id in its body only.
//
// # The official SDK
//
// The wire types are this package's own, not those of
// github.com/anthropics/anthropic-sdk-go/v2 (v2.15.0), for three reasons,
// each pinned by TestSDKDivergences so that an upgrade that changes them
// shows. Its request type, MessageNewParams, is of version 2026-10-21
// only: it drops temperature, top_p and top_k, so it cannot write a
// request for Version20230601, which Ollama and llama-server speak. Its
// way from a reply back to a request, Message.ToParam, writes the blocks
// again, keys reordered and <, > and & escaped, where thinking blocks are
// to go back as they came. And its package brings gjson, sjson,
// OpenTelemetry and more into every program that imports this one, which
// needs only the standard library. The transport is the module's own
// anyway (retries, the response limit, key redaction). The tests hold the
// types to the SDK: every request body they send decodes into
// MessageNewParams and encodes back to the same JSON, but for the forms
// the SDK gives it (a tool_result's text content as a text block, and no
// stream, temperature, top_p or top_k).
package anthropic
