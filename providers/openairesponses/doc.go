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
// or set OPENAI_BASE_URL. The key comes from Config.APIKey, else
// OPENAI_API_KEY; with neither, no Authorization header is sent. For the
// Chat Completions API, use providers/openai.
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
// text and no calls adds no item.
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
// "summary": "auto"}, "service_tier", "truncation") unless the request
// already has that field; model, input, instructions, stream, tools,
// tool_choice and previous_response_id cannot be set that way, and store
// and include are always set.
//
// # Reasoning
//
// A request asks for include ["reasoning.encrypted_content"]: a reasoning
// model then returns its reasoning items with their content encrypted,
// which is how, with nothing stored, its reasoning goes back to it in the
// next request, as OpenAI requires during tool calls. The items of a reply
// are kept in the assistant message's ProviderData, as the bytes the
// server sent (whitespace removed), each with the tool call it preceded;
// a request sends them back unchanged, each right before that call, or
// before the message's text when it preceded no call. A reasoning item
// without encrypted content names an item stored on the server, which
// does not exist with store false: it is dropped. The summaries of the
// reasoning items (or their text, which llama-server sends instead) are
// the message's Reasoning, which is not sent back by itself.
//
// ProviderData holds a JSON object whose "openai_responses" key is this
// package's; any other ProviderData (another provider's) is ignored. Data
// under that key that is not this package's, or that names a call the
// message does not have, fails the request with [chat.ErrBadRequest].
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
// ([toolcall.ErrReplyCut]); another reason, which might have cut a call
// in half, is an error wrapping [chat.ErrBadResponse]. A "failed"
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
// call, yielding what the deltas did not bring. A message's text that
// came in no delta is yielded from its output_item.done, and a reasoning
// item is kept from its output_item.done, where its encrypted content is
// whole. response.completed, response.incomplete and response.failed end
// the stream, as a JSON reply would end; when no event brought an item,
// the final response's output is the reply, and when none brought a
// reasoning item, the final output's reasoning items are kept. An "error" event ends the
// stream with an error. Other events (response.created, in_progress,
// content_part.*, reasoning summaries, ...) are skipped without being
// decoded beyond their type. A stream that ends, or sends "data: [DONE]",
// before its final event is an error wrapping [chat.ErrBadResponse]; a
// server that answers a stream request with a JSON reply is read as one.
//
// # Errors
//
// Every error is a [*chat.ProviderError] with Provider "openairesponses",
// the HTTP status, the model and the server's message (never the raw
// body), and the request id the server gave (x-request-id), except
// [chat.ErrStreamStopped]. It wraps [chat.ErrUnauthorized] (401, 403),
// [chat.ErrModelNotFound] (404 whose message names a model; another 404
// is a wrong URL and wraps [chat.ErrBadRequest]), [chat.ErrRateLimited]
// (429), [chat.ErrServer] (5xx), or [chat.ErrBadRequest] (other 4xx, and
// requests that cannot be built, which are not sent). A 400 whose message
// says the model takes no tools wraps [chat.ErrToolsNotSupported]. An
// error reported with status 200 (an error body, a failed response, an
// error event) wraps [chat.ErrRateLimited] for the code
// "rate_limit_exceeded", [chat.ErrBadRequest] for codes "invalid_...",
// else [chat.ErrServer]. A body that is not the JSON expected, and a
// reply cut off, wrap [chat.ErrBadResponse]. A failure to connect wraps
// the net error; a cancelled context ends a call promptly, and the error
// wraps ctx.Err(). RetryAfter comes from retry-after-ms or Retry-After.
// Attempts says how many requests a call made, in the error or in the
// reply.
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
// wrapping [chat.ErrBadResponse].
//
// # openai-go
//
// The wire types are this package's own, not those of OpenAI's SDK
// (github.com/openai/openai-go/v3), and the SDK is used only in the tests,
// which check that every request body decodes into its types and encodes
// back to the same JSON. The reasons: a reasoning item goes back byte for
// byte as received, while the SDK's types drop the fields they do not
// know; the SDK v3.98.0 decodes a request's input only item by item (a
// whole request silently drops an input it cannot read) and loses the
// name of a function tool choice; and its param types would bring
// tidwall/gjson, tidwall/sjson and a websocket library into every
// program that uses this package. Sending and retrying stay the library's
// own, as for the other providers. TestSDKLimitations pins these
// behaviours, so an upgrade that changes them shows.
package openairesponses
