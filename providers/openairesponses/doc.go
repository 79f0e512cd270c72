// Package openairesponses is a [chat.Model] for OpenAI's Responses API
// (POST /v1/responses), through which OpenAI's reasoning models do their
// best tool calling, and which llama.cpp's llama-server and Ollama serve
// too.
//
//	model := openairesponses.New(openairesponses.Config{Model: "gpt-5-mini"}) // key from OPENAI_API_KEY
//	client := toolcall.NewClient(model)
//	resp, err := client.Prompt("What's the weather in Paris?").Tools(weather).Call(ctx)
//
// For another server, set BaseURL to its API root, e.g.
// openairesponses.Config{BaseURL: "http://localhost:11434/v1", Model: "qwen3"};
// or set OPENAI_BASE_URL. A BaseURL copied with an endpoint's path
// (".../v1/responses", or another API's "/chat/completions",
// "/completions", "/messages") is taken for the root before it, rather
// than sending to .../v1/responses/responses and reporting a 404. The key
// comes from Config.APIKey, else OPENAI_API_KEY; with neither, no
// Authorization header is sent. For the Chat Completions API, use
// providers/openai.
//
// # Requests
//
// Every request carries the whole conversation: "store" is false and
// nothing refers to an earlier response (no previous_response_id, no item
// references), so a conversation can go to any server, or be replayed.
// The system messages that open the conversation, joined by a blank line,
// are the "instructions"; a later system message stays in place as a
// message item. Every input item carries its "type": user, system and
// assistant text are "message" items with their text as "content"; an
// assistant message's tool calls are "function_call" items (call_id,
// name, and the arguments as JSON text, "{}" when empty), after its text;
// a tool message is a "function_call_output" item with the call's id and
// the result as "output", even when empty. ToolName and IsError have no
// Responses equivalent and are not sent; an assistant message with no
// text and no calls adds no item. An assistant message that keeps a
// reasoning model's output items goes back as those items instead (see
// Reasoning).
//
// Tools become function tools with their input schema as "parameters" (an
// empty or null schema becomes {"type":"object","properties":{}}) and
// "strict" always sent: omitted, the API takes the schema as strict, which
// a schema written for ordinary use is not, so a tool without
// Definition.Strict sends false. ToolChoice becomes tool_choice: "auto",
// "none", "required", or {"type":"function","name":...}; it and
// Options.ParallelToolCalls (parallel_tool_calls) are sent only with
// tools.
//
// Options map to temperature, top_p and max_output_tokens. The API has no
// stop sequences and no seed: a request with Options.Stop or Options.Seed
// is refused with [chat.ErrBadRequest] before anything is sent, rather
// than sent without them. The keys of Options.Extra are added as
// top-level request fields (e.g. "reasoning": {"effort": "high",
// "summary": "auto"}, "service_tier", "truncation", "include") unless the
// request already has that field; model, input, instructions, stream,
// tools, tool_choice and previous_response_id cannot be set that way, and
// store is always false.
//
// A request with a "reasoning" setting in Options.Extra asks for include
// ["reasoning.encrypted_content"] (see Reasoning); one without does not,
// since models without reasoning (gpt-4o, gpt-4.1) refuse it with 400. An
// "include" of Options.Extra is sent instead, as given: a reasoning model
// used with its default settings keeps its reasoning with
// Extra: {"include": ["reasoning.encrypted_content"]}, and an empty list
// sends none.
//
// # Reasoning
//
// With include ["reasoning.encrypted_content"], a reasoning model returns
// its reasoning items with their content encrypted, which is how, with
// nothing stored, its reasoning goes back to it in the next request, as
// OpenAI requires during tool calls. A reasoning item goes back only
// directly before the item that followed it in the reply, that item
// carrying its output id; the API refuses it otherwise ("Item 'rs_...' of
// type 'reasoning' was provided without its required following item").
// So a reply with such an item keeps all its output items, in order, in
// the assistant message's ProviderData: reasoning items and message items
// (gpt-5.5's "phase": "commentary" narration among them) as the server
// sent them, message items without logprobs (in a stream, as its
// output_item.done sent them), function calls by their place in
// ToolCalls with their output ids. The next request sends them in that
// order, the calls rebuilt from ToolCalls with their "id". What the caller
// changed goes as the message says: text that is no longer the items'
// goes as one message item in place of theirs, a call with another ID
// goes without its output id, an added call after the reply's items; and
// a reasoning item whose following item does not go back as received is
// left out, since the API would refuse it. A reasoning item without
// encrypted content names an item stored on the server, which does not
// exist with store false: it is never sent. A reply with no reasoning item
// to send back keeps nothing, and goes back as its text and calls.
//
// The reasoning items' summaries (or their text, which llama-server sends
// instead) are the message's Reasoning, each summary part a section of its
// own after a blank line, in a JSON reply as in a stream. Reasoning is not
// sent back by itself.
//
// ProviderData holds a JSON object whose "openai_responses" key is this
// package's; any other ProviderData (another provider's) is ignored. Data
// under that key that is not this package's, or that names a call the
// message does not have, fails the request with [chat.ErrBadRequest].
//
// # Typed answers
//
// The Model is a [chat.StructuredModel]: a request's Output (a typed answer
// asked for with toolcall's Prompt.Answer) goes out as text.format {"type":
// "json_schema", name, schema, strict}; the answer is the reply's text.
// Options.Extra["text"] beside it is refused, not merged. This native mode
// is the default; "strict" is sent only when true. With
// Prompt.AnswerMode(chat.OutputTool) the answer is instead a call of the
// function tool final_answer, offered in tools beside the others, with
// tool_choice "required" and no text.
//
// # Responses
//
// The output items become the reply: the text of its message items (a
// refusal part is text too), its function calls, in order, and reasoning
// as above; items of other types, which this package never asks for, are
// skipped. Arguments are kept as the model wrote them; a server that
// sends them as a JSON object is read too, and empty arguments become
// "{}". A call without a call_id gets "call_<index>", and a repeated id a
// "_<n>" suffix, so tool results can be matched to their calls.
//
// A completed response finishes with [chat.FinishToolCalls] when it has
// calls, else [chat.FinishStop]. An "incomplete" one was cut short: with
// incomplete_details.reason "max_output_tokens" it finishes with
// [chat.FinishLength], with "content_filter" with [chat.FinishFiltered],
// whatever calls it holds, and a Client runs none of them
// ([toolcall.ErrReplyCut]); its message item has status "incomplete" too.
// Another reason, which might have cut a call in half, is an error
// wrapping [chat.ErrBadResponse]. A "failed"
// response is an error with the server's message. input_tokens, which
// counts the cached tokens, is PromptTokens; cached_tokens is
// CacheReadTokens and reasoning_tokens ReasoningTokens.
//
// # Streaming
//
// Stream sends "stream": true and reads the server-sent events as they
// arrive. response.output_text.delta (and response.refusal.delta) yield
// text; a function_call's response.output_item.added yields the call's id
// and name, and response.function_call_arguments.delta its arguments in
// pieces, matched to the call by item_id, else output_index. A server
// that sends no response.function_call_arguments.done (llama-server) is
// read as one that does; .done and response.output_item.done complete a
// call, yielding what the deltas did not bring. An item's place in the
// output is that of its output_item.added. A message's text that came in
// no delta is yielded from its output_item.done; message and reasoning
// items are kept from their output_item.done, where a reasoning item's
// encrypted content is whole (the API encrypts it anew each time it
// writes it: the added, done and final values differ, and the done one is
// sent back). response.completed, response.incomplete and response.failed
// end the stream, as a JSON reply would end; when no event brought an
// item, the final response's output is the reply, and when none brought a
// reasoning item, the final output's order and reasoning items are kept.
// An "error" event ends the stream with an error. Other events
// (response.created, in_progress, content_part.*, reasoning summary
// deltas, ...) are skipped without being decoded beyond their type; their
// sequence_number is not needed, as events arrive in order. A stream that
// ends, or sends "data: [DONE]", before its final event is an error
// wrapping [chat.ErrBadResponse]; a server that answers a stream request
// with a JSON reply is read as one.
//
// # Errors
//
// Every error is a [*chat.ProviderError] with Provider "openairesponses",
// the HTTP status, the model and the server's message (never the raw
// body), and the request id the server gave (x-request-id), except
// [chat.ErrStreamStopped]. It wraps [chat.ErrUnauthorized] (401, 403),
// [chat.ErrModelNotFound] (code "model_not_found", which OpenAI sends
// with 400 for an unknown model, or a 404 whose message names a model;
// another 404 is a wrong URL and wraps [chat.ErrBadRequest]),
// [chat.ErrQuotaExceeded] (code "insufficient_quota": the account's
// credit is used up; never retried), [chat.ErrRateLimited] (other 429s),
// [chat.ErrServer] (5xx), or [chat.ErrBadRequest] (other 4xx, and
// requests that cannot be built, which are not sent). A 400 whose message
// says the model takes no tools wraps [chat.ErrToolsNotSupported]. A
// stream request refused by validation gets a JSON error body, not a
// stream, and is read as one. An error reported with status 200 (an
// error body, a failed response, an error event) wraps
// [chat.ErrRateLimited] for the code "rate_limit_exceeded",
// [chat.ErrQuotaExceeded] for "insufficient_quota",
// [chat.ErrModelNotFound] for "model_not_found", [chat.ErrBadRequest] for
// codes "invalid_...", else [chat.ErrServer]. A body that is not the JSON
// expected, and a reply cut off, wrap [chat.ErrBadResponse]. A failure to
// connect wraps the net error; a cancelled context ends a call promptly,
// and the error wraps ctx.Err(). RetryAfter comes from retry-after-ms or
// Retry-After. Attempts says how many requests a call made, in the error
// or in the reply.
//
// The API key never appears in an error, nor in the Model's String form:
// it is removed from server messages that echo it and from transport
// errors. Keys shorter than 8 bytes are taken for the placeholders local
// servers accept and are not redacted.
//
// # Retries, connections and limits
//
// As in providers/openai: a request that fails with status 408, 409, 429
// or 5xx, or whose connection fails before any response, is sent again,
// up to Config.MaxRetries times ([DefaultMaxRetries] when 0, none with
// [NoRetries]), after 0.5 s·2^(n-1) (at most 8 s, less a jitter) or what
// the server's Retry-After asks (at most 30 s); never once a 2xx response
// has begun, so a stream is never replayed. With Config.HTTPClient nil,
// requests go through the client shared by the provider packages, which
// keeps up to 100 idle connections per server. A reply larger than
// Config.MaxResponseBytes (32 MiB by default) ends the call with an error
// wrapping [chat.ErrBadResponse]; for a stream, that is all it assembles
// (text, reasoning, kept items, calls with their names and ids, and a
// share for each call and item), so a server cannot make it hold more by
// sending many or large items of any kind.
//
// # Tests
//
// The package is tested against recordings of local servers
// (testdata/llamacpp, testdata/ollama: llama.cpp's llama-server and
// Ollama) and of OpenAI's own API (testdata/cloud/openai-responses: 21
// cases recorded by pydantic-ai's test suite, MIT, listed with what they
// show in testdata/cloud/README.md). Every cloud recording is replayed:
// each reply is checked against a golden file, each request of a
// conversation is built from this package's own earlier reply and
// compared with the request the API accepted. What they show a client
// must survive, besides what is said above: output item ids ("rs_",
// "msg_", "fc_"); a reasoning item with an empty summary and only
// encrypted content; a message between a reasoning item and its call;
// a function_call's output_item.added with arguments "" before its
// deltas; an unknown model answered with 400; error codes that may be
// null.
//
// # openai-go
//
// The wire types are this package's own, not those of OpenAI's SDK
// (github.com/openai/openai-go/v3), and the SDK is used only in the tests,
// which check that every request body decodes into its types and encodes
// back to the same JSON. The reasons: a reasoning item goes back byte for
// byte as received, while the SDK's types drop the fields they do not
// know; the SDK v3.98.0 decodes a request's input only item by item (a
// whole request silently drops an input it cannot read), loses the
// name of a function tool choice, and takes a message item sent back
// for an input message, dropping its id; and its param types would bring
// tidwall/gjson, tidwall/sjson and a websocket library into every
// program that uses this package. Sending and retrying stay the library's
// own, as for the other providers. TestSDKLimitations pins these
// behaviours, so an upgrade that changes them shows.
package openairesponses
