// Package openai is a [chat.Model] for OpenAI's Chat Completions API
// and the servers that copy it: vLLM, llama.cpp's llama-server, LM Studio,
// Ollama's /v1, DeepSeek, Groq and others.
//
//	model := openai.New(openai.Config{Model: "gpt-4o-mini"}) // key from OPENAI_API_KEY
//	client := toolcall.NewClient(model)
//	resp, err := client.Prompt("What's the weather in Paris?").Tools(weather).Call(ctx)
//
// For a compatible server, set BaseURL to its API root, e.g.
// openai.Config{BaseURL: "http://localhost:8080/v1", Model: "qwen2.5"}; or
// set OPENAI_BASE_URL. A BaseURL copied with the endpoint,
// ".../v1/chat/completions", is taken as meant; one that ends in another
// API's endpoint (/responses, /messages) fails every request, unsent, with
// an error that says what to set. The key comes from Config.APIKey, else
// OPENAI_API_KEY; with neither, no Authorization header is sent.
//
// The package is tested against recordings of local servers (llama.cpp's
// llama-server and Ollama's /v1, testdata/llamacpp and testdata/ollama-v1)
// and of the real cloud API, testdata/cloud/openai-chat: api.openai.com
// and Gemini's OpenAI-compatible endpoint, recorded by pydantic-ai's test
// suite (MIT; see testdata/cloud/README.md). TestCloudRecordings replays
// every one of them, builds each next request from this package's own
// reply and compares it with the request the API accepted.
//
// # Requests
//
// Messages keep their roles. An assistant message's tool calls are sent
// with their arguments as a JSON string; empty or null arguments are sent
// as "{}", which every server accepts (go-openai would drop an empty
// string, and servers reject a call without arguments). An assistant turn
// with tool calls and no text has "content": null. A tool message carries
// tool_call_id and its content, even when empty; ToolName and IsError have
// no Chat Completions equivalent and are not sent.
//
// What a reply needs back in later requests goes back with it: an
// assistant message's Reasoning as "reasoning_content" (DeepSeek's thinking
// mode requires it during tool calls); a tool call's ProviderData,
// when it is a JSON object, as the call's "extra_content" (Gemini's thought
// signatures, {"google":{"thought_signature":"..."}}, cloudwego/eino#621);
// and the "extra_content" and "thought_signature" an assistant message's
// ProviderData holds, {"extra_content":{...},"thought_signature":"..."},
// as fields of that message, where Gemini's endpoint put them in its reply.
// Other keys of Message.ProviderData (another provider's data) are not
// sent; ProviderData this package cannot send back (not valid JSON, an
// extra_content that is no object, a thought_signature that is no string)
// fails the request before it is sent.
//
// Tools become function tools with their input schema as "parameters" (an
// empty or null schema becomes {"type":"object","properties":{}}, since
// OpenAI rejects an object schema without properties) and "strict": true when
// Definition.Strict is set. ToolChoice becomes tool_choice: "auto", "none",
// "required", or {"type":"function","function":{"name":...}} for a named
// tool. tool_choice and parallel_tool_calls are sent only with tools, as
// OpenAI rejects them otherwise.
//
// Options map to temperature, top_p, seed, stop and parallel_tool_calls.
// MaxTokens is sent as max_tokens, which compatible servers know, except to
// api.openai.com, where it is max_completion_tokens, the only form OpenAI's
// reasoning models accept. The keys of Options.Extra are added as
// top-level request fields (top_k, min_p or repetition_penalty for vLLM and
// llama.cpp, reasoning_effort, max_completion_tokens, ...) unless the
// request already has that field; model, messages, stream, stream_options,
// tools and tool_choice cannot be set that way.
//
// # Typed answers
//
// The Model is a [chat.StructuredModel]: a request's Output (a typed answer
// asked for with toolcall's Prompt.Answer) goes out as response_format
// {"type": "json_schema", "json_schema": {name, schema, strict}}, which
// OpenAI, llama.cpp's server, vLLM and Ollama's /v1 take; the answer is the
// reply's text. The recording tool_call_json_answer shows api.openai.com
// answering so. This native mode is the default; "strict" is sent only when
// true (llama.cpp's server reads the schema alone, from json_schema.schema).
// With Prompt.AnswerMode(chat.OutputTool) the answer is instead a call of
// the function tool final_answer, offered in tools beside the others, with
// tool_choice "required" and no response_format.
//
// # Responses
//
// The first choice becomes the reply: its text (a refusal is text too, and
// content sent as an array of parts is joined), its tool calls, the finish
// reason and the usage. Usage has prompt_tokens_details.cached_tokens as
// CacheReadTokens and completion_tokens_details.reasoning_tokens as
// ReasoningTokens; TotalTokens is the server's total_tokens (the sum of
// prompt and completion when it sends none), even where it is larger than
// that sum: Gemini's endpoint counts thinking there only, and
// ReasoningTokens, part of CompletionTokens, is not made up from the
// difference. Arguments are kept as the model wrote them; a
// server that sends them as a JSON object instead of a string
// (google/adk-go#1254) is read too, and empty or null arguments become
// "{}". Missing call ids become "call_<index>" and a repeated id gets a
// "_<n>" suffix, so the ids of a reply are unique and tool results can be
// matched to their calls. A reply with tool calls finishes with
// [chat.FinishToolCalls] unless it was cut short
// ([chat.FinishLength]) or filtered ([chat.FinishFiltered]),
// whatever the server said; a Client does not run the calls of such a
// reply ([toolcall.ErrReplyCut]). Reasoning text (reasoning_content, from
// DeepSeek and llama.cpp's server) becomes Message.Reasoning, a tool
// call's extra_content object its ProviderData, which stays with the call
// when the call is given an id, and the message's own extra_content object
// and thought_signature string (Gemini's thought signature when it is not
// on a call) the message's ProviderData.
//
// # Streaming
//
// Stream sends "stream": true with stream_options.include_usage and reads
// the server-sent events as they arrive: each data line is one chunk. Text
// is yielded as it comes. Tool-call fragments are assembled by index, with
// the id and name usually only in the first fragment and the arguments in
// pieces; calls may interleave, and a different non-empty id at an index
// already in use starts a new call (some servers send all parallel calls
// with index 0). A placeholder id "null" counts as no id. Reasoning
// fragments are joined into the reply's Message.Reasoning and are not
// yielded; a call keeps the first extra_content its fragments bring, and
// the message the first extra_content and thought_signature of its
// deltas. Usage comes in the last chunk, with "choices":[]. The
// stream ends at "data: [DONE]"; a stream that ends without it is complete
// if a finish_reason arrived, and otherwise an error wrapping
// [chat.ErrBadResponse]. An error event ("error:" lines, "event: error",
// or a chunk that is an {"error": ...} object) ends the stream with an
// error.
//
// # Errors
//
// Every error is a [*chat.ProviderError] with Provider "openai", the
// HTTP status, the model and the server's message (never the raw body),
// except [chat.ErrStreamStopped]. It wraps [chat.ErrUnauthorized]
// (401, 403), [chat.ErrModelNotFound] (a 404 whose message names a
// model, and a 400 or 404 with code "model_not_found"),
// [chat.ErrQuotaExceeded] (a 429 with code "insufficient_quota": no credit
// left, which is not retried), [chat.ErrRateLimited] (other 429s),
// [chat.ErrServer] (5xx, and errors
// reported inside a 200 reply or a stream) or [chat.ErrBadRequest] (other
// 4xx, requests that cannot be built, which are not sent, and a 404 page
// or a 404 message about something else than a model, which means a wrong
// URL: the message says where /chat/completions was looked for, and that
// BaseURL usually ends in /v1 when it does not). An empty 404 may be a
// wrong URL or a missing model and wraps no sentinel. A 400 whose message
// says the model or server cannot take tools ("does not support tools",
// vLLM's "--enable-auto-tool-choice", llama.cpp's "requires --jinja", ...)
// wraps [chat.ErrToolsNotSupported]. RetryAfter comes from retry-after-ms or
// Retry-After (seconds or an HTTP date). A body that is not the JSON
// expected, a body or stream cut off (the read error, such as
// io.ErrUnexpectedEOF, stays in the chain), a reply larger than
// Config.MaxResponseBytes, and a redirect the HTTP client did not follow
// wrap [chat.ErrBadResponse]. RequestID is the server's x-request-id
// (or request-id) header, which OpenAI's support asks for. A
// failure to connect wraps the net error (errors.Is(err,
// syscall.ECONNREFUSED) holds); a cancelled context ends a call promptly,
// and the error wraps ctx.Err().
//
// Each error and each reply says how many requests the call made, retries
// included: [chat.ProviderError].Attempts and [chat.Response].Attempts,
// which the loop's hooks see in ModelCall.Err and ModelCall.Response. The
// error's other fields describe the last request; its message ends in
// "(3 attempts)" when there was more than one.
//
// The API key never appears in an error: it is removed from server
// messages that echo it and from transport errors. Keys shorter than 8
// bytes are taken for the placeholders local servers accept ("ollama")
// and are not redacted.
//
// # Response limit
//
// A reply is read into memory, so its size is bounded: by
// Config.MaxResponseBytes, 32 MiB when it is 0, which is millions of
// tokens. For a reply that is not streamed the limit is on the body,
// refused unread when its Content-Length is larger; for a stream, on what
// it assembles, since the framing of its events can be several times its
// size: text, reasoning, and the calls' ids, names, arguments and
// extra_content, the message's extra_content and thought_signature, and
// 256 bytes for each call (about what it takes in memory), so that the
// number of calls is bounded too. A body or line of many tiny JSON values
// is refused before it is decoded (Config.MaxResponseBytes says how). A
// larger reply ends the
// call with an error wrapping [chat.ErrBadResponse] that names the limit,
// and reading it took memory for about the limit, not for the whole
// body. A negative Config.MaxResponseBytes, such as [toolcall.NoLimit],
// removes the limit, as NoLimit does for the library's other limits. Each
// line of a stream is bounded to eight times the limit, at least 1 MiB
// and at most 16 MiB; a whole JSON body sent in answer to a stream, to
// the limit, as any body.
//
// # Retries
//
// A request that fails with status 408, 409, 429 or 5xx, or with a
// connection error before any byte of a response (refused, reset, closed
// by the server), is sent again, up to Config.MaxRetries times:
// [DefaultMaxRetries] (2, so three requests at most) when it is 0, none
// with [NoRetries] or any negative value. Other 4xx are not retried, nor
// is a timeout after the request went out, a certificate error or an
// unknown host. The wait before retry n is 0.5 s·2^(n-1), at most 8 s,
// less a random jitter of up to a quarter; a server's retry-after-ms or
// Retry-After (seconds or an HTTP date) replaces it, up to 30 s. A wait
// that would outlast the context's deadline is not begun: the call ends
// with the server's error at once. Cancelling the context ends a wait at
// once, with an error that wraps both ctx.Err() and the last failure's
// sentinel.
//
// Only the request is retried, until the status line and headers of a 2xx
// response arrive; nothing of a reply has been read then. Once they have,
// the call is never retried: a stream cut after its first delta ends in an
// error after the caller got that delta, and a body cut short ends in an
// error too.
//
// The retries are around this package's own sending of the request (see
// Libraries below), not in an http.RoundTripper: a round trip also ends at
// the headers, but a transport wrapped around Config.HTTPClient would have
// to replay request bodies and read statuses again, and could not report
// the number of attempts in the error.
//
// # Connections
//
// With Config.HTTPClient nil, requests go through one client shared by all
// models of this package and of providers/ollama. Its transport is a clone
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
//	model := openai.New(openai.Config{Model: "gpt-4o-mini", HTTPClient: &http.Client{Transport: tr}})
//
// # What the cloud recordings show
//
// A client of the real API must survive what testdata/cloud/openai-chat
// holds, and this package reads all of it: an "obfuscation" string of
// random length on every chunk; a first chunk with "role":"assistant" and
// "content":null (the first call's first fragment may ride in it); "usage":
// null on every chunk but the last, which has "choices":[]; a call without
// arguments streamed as "" then "{}"; parallel calls streamed one after
// the other, index 0 then 1; "content":null next to tool_calls,
// "refusal":null and "annotations":[] in replies; error bodies whose
// "code" is a string or null. Gemini's endpoint sends a call with "id":
// "", which gets "call_<index>" (the recorded client sent an id of its
// own, which the API accepted), its thought signature on the message, and
// a total_tokens larger than prompt plus completion.
//
// # Libraries
//
// The package speaks HTTP with net/http and JSON with encoding/json,
// through the module's internal/httpline (requests, retries, errors,
// server-sent events) and its own request and reply types. From
// github.com/sashabaranov/go-openai it takes only APIError, to read the
// message of OpenAI's error bodies (which may be a list); the official SDK,
// github.com/openai/openai-go/v3, is used only by the tests. Both are
// compared in the tests: BenchmarkRound runs the same round through this
// package, the SDK and go-openai, and TestGoOpenAILimitations pins what
// made this package not use go-openai's types and Client.
//
// The request body and the reply are this package's own types, with only
// the fields it sends and reads. go-openai's request type loses
// information in its encoding: temperature and top_p are float32 with
// omitempty, so a temperature of 0 would not be sent, its messages omit
// empty content, which OpenAI rejects in a tool message, and its tool
// calls have no extra_content. Its many fields, and its tools encoded
// through a map, also made each request dearer to encode
// (BenchmarkHTTPLoop).
//
// The request is sent with net/http and the response decoded here, not
// with go-openai's Client. In v1.43.0 its CreateChatCompletion fails on
// arguments sent as an object; its errors drop the response headers, so
// Retry-After is lost, and its RequestError prints the raw body, where a
// server may echo the key; its stream reader reports a stream cut off
// mid-event as io.EOF, the same as a complete one; and it refuses some
// requests by model name before sending them. Decoding the body once,
// with types that accept both forms of arguments, is simpler than
// intercepting its transport to repair responses, and no slower
// (BenchmarkRound compares them). TestGoOpenAILimitations pins these
// behaviours, so an upgrade that fixes them shows.
package openai
