// Package gemini is a [chat.Model] for Google's Gemini API
// (generateContent and streamGenerateContent on
// generativelanguage.googleapis.com), with the API's own tool calling:
// function declarations, thought signatures and function responses as
// Gemini wants them, which its OpenAI-compatible endpoint hides.
//
//	model := gemini.New(gemini.Config{Model: "gemini-2.5-flash"}) // key from GOOGLE_API_KEY or GEMINI_API_KEY
//	client := toolcall.NewClient(model)
//	resp, err := client.Prompt("What's the weather in Paris?").Tools(weather).Call(ctx)
//
// The key, from Config.APIKey, else GOOGLE_API_KEY, else GEMINI_API_KEY
// (the order google.golang.org/genai reads them in), is sent in the
// x-goog-api-key header, never in the URL. The server is Config.BaseURL,
// else GOOGLE_GEMINI_BASE_URL, else https://generativelanguage.googleapis.com:
// its root, to which the package adds /v1beta/models/MODEL:generateContent,
// or :streamGenerateContent?alt=sse for [Model.Stream]. A model named
// "models/..." or "tunedModels/..." keeps its prefix.
//
// # A round of tool calls
//
// The tools go as the functionDeclarations of one Tool, each with its
// whole JSON Schema as parametersJsonSchema, so the model sees the schema
// the checker enforces, not a conversion to the OpenAPI subset of
// "parameters" (an empty schema becomes
// {"type":"object","properties":{}}). ToolChoice becomes
// toolConfig.functionCallingConfig: AUTO, ANY ("required"), NONE, or ANY
// with allowedFunctionNames for a named tool, which must be one of the
// request's tools. The system messages are the systemInstruction's parts.
//
// The model answers with functionCall parts, which become the reply's
// tool calls. The API rarely gives a call an id; a call without one gets
// "call_<index>", so that results can be matched to it, and that id is
// never sent to the API: the call goes back without an id, and so does
// its result, which the API then matches by name and position. An id the
// API gave goes back on the call and on its result. The tool messages
// that answer one reply go back as functionResponse parts of one user
// content, in the order of the calls, whatever the order of the messages:
// {"output": result} for a result, {"error": result} for one with
// Message.IsError, the keys the API reference gives; a result that is a
// JSON object or array is sent as that value, any other as a string.
//
// # Thought signatures and thoughts
//
// Gemini's models sign their reasoning: a part may carry a
// thoughtSignature, which must come back on that same part. With
// parallel calls only the first call carries one; on a text answer it is
// on the last text part, and in a stream sometimes on an empty text part
// at the very end. So a reply with a call, a thought, a signature or a
// part of another kind keeps all its parts in Message.ProviderData, as
// {"gemini_parts":[...]}; a reply of plain text keeps nothing. Keep the
// assistant message in the history, as the toolcall loop does, and the
// parts go back in their order, each signature on its part: calls and
// parts of other kinds as they came (compacted), text and thought parts
// as their text, thought flag and signature. A call whose name or
// arguments the caller changed is written from the call, its id and
// signature kept. If the caller changed the message's text or its calls,
// the kept thoughts go first, then the text, then the calls, each kept
// call with its signature. A stream's text arrives in
// many chunks of one part: they are kept as the one part a reply not
// streamed has, with the signature that came with any of them. An empty
// text part without a signature is never sent.
//
// A call that no reply of this package made (another provider's, or one
// the program wrote) has no signature, which Gemini 3 models require on
// the calls of the current turn; the first call of such a message is sent
// with the signature the API documents for that case,
// base64("skip_thought_signature_validator"), and with its id.
//
// Thinking is set by Config.Thinking or, for one request,
// Options.Extra["thinkingConfig"] (a [ThinkingConfig], or a JSON object
// of its fields; nil sends none): includeThoughts, thinkingBudget or
// thinkingLevel. Thought parts ({"text":...,"thought":true}) become
// Message.Reasoning, joined, and go back in place with the rest of the
// parts. Reasoning without ProviderData, such as another provider's, is
// not sent.
//
// # Requests
//
// Each user message is one user content, sent even when its text is
// empty (the API takes it); each assistant message one model content,
// left out when it has nothing to send. A request with no content is
// refused. Options.MaxTokens is generationConfig.maxOutputTokens,
// Temperature temperature, TopP topP, Seed seed and Stop stopSequences;
// Options.ParallelToolCalls false is refused, as the API cannot turn
// parallel calls off. The keys of Options.Extra["generationConfig"] (an
// object) are added to the generationConfig unless the request already
// sets them, e.g. responseMimeType and responseJsonSchema; the other keys
// of Options.Extra are added as top-level fields (safetySettings,
// cachedContent, a toolConfig when ToolChoice sets none, ...) unless the
// request already has them; contents, tools and systemInstruction cannot
// be set that way. Tool definitions' Strict has no equivalent and is not
// sent.
//
// # Typed answers
//
// The Model is a [chat.StructuredModel]: a request's Output (a typed answer
// asked for with toolcall's Prompt.Answer) goes out in generationConfig as
// responseMimeType application/json and responseJsonSchema, the whole
// schema, as the recording stream_function_call_then_json shows the API
// taking; the answer is the reply's text. This native mode is the default;
// the API has no strict flag. With Prompt.AnswerMode(chat.OutputTool) the
// answer is instead a call of the function final_answer, declared in
// functionDeclarations beside the others, with
// toolConfig.functionCallingConfig mode ANY and no responseJsonSchema.
//
// # Replies
//
// Only the candidate of index 0 is read. Its text parts are joined into
// Message.Content. finishReason STOP finishes with [chat.FinishToolCalls]
// when the reply has calls (the API says STOP for calls too), else
// [chat.FinishStop]; MAX_TOKENS with [chat.FinishLength], also when the
// content has no parts at all (all tokens spent thinking); SAFETY,
// RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII and the image filters'
// reasons with [chat.FinishFiltered]. A Client runs no call of a reply
// that finishes with length or filtered ([toolcall.ErrReplyCut]).
// MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL and TOO_MANY_TOOL_CALLS
// end the call with an error wrapping [chat.ErrBadResponse] that names
// the reason and quotes the API's finishMessage: such a reply holds no
// call to run, nor one whose error could go back to the model, so the
// program decides whether to ask again. A reason this package does not
// know, or none, on a reply with calls is such an error too; without
// calls it is passed on as the finish reason. A reply without a
// candidate whose promptFeedback has a blockReason is an error wrapping
// [chat.ErrBadRequest] that names it; without one, [chat.ErrBadResponse].
//
// Usage: PromptTokens is promptTokenCount (which includes
// cachedContentTokenCount, also in CacheReadTokens) plus
// toolUsePromptTokenCount; CompletionTokens is candidatesTokenCount plus
// thoughtsTokenCount, which the API counts apart and which is also
// ReasoningTokens. So TotalTokens is the API's totalTokenCount.
//
// # Streaming
//
// Stream reads server-sent events whose every data line is a whole
// GenerateContentResponse: no event names, no [DONE], lines ending in
// CRLF. Text is yielded as it comes; a call arrives whole in one chunk
// and is yielded whole, with its id, name and arguments. Thoughts are not
// yielded. Each chunk's usageMetadata replaces the last one's (the
// counts change along the stream, the prompt's too). The reply is
// complete at the end of the stream once a chunk gave a finishReason; a
// stream that ends before, or in the middle of a line, is an error
// wrapping [chat.ErrBadResponse] and io.ErrUnexpectedEOF.
//
// # Errors
//
// Every error is a [*chat.ProviderError] with Provider "gemini", the HTTP
// status, the model and the server's message (never the raw body),
// except [chat.ErrStreamStopped]. The status of the API's google.rpc
// error body gives the sentinel: INVALID_ARGUMENT, FAILED_PRECONDITION
// and OUT_OF_RANGE [chat.ErrBadRequest], but an invalid key (an ErrorInfo
// detail with reason API_KEY_INVALID) [chat.ErrUnauthorized];
// UNAUTHENTICATED and PERMISSION_DENIED [chat.ErrUnauthorized]; NOT_FOUND
// [chat.ErrModelNotFound] when its message names a model, as the API's
// does, else a wrong BaseURL, [chat.ErrBadRequest]; RESOURCE_EXHAUSTED
// [chat.ErrRateLimited], its RetryInfo's retryDelay taken as Retry-After,
// but [chat.ErrQuotaExceeded], never retried, when its QuotaFailure names
// a daily quota; INTERNAL, UNKNOWN, UNAVAILABLE and DEADLINE_EXCEEDED
// [chat.ErrServer]. A model that takes no tools ("Function calling is not
// enabled for models/gemma-...") wraps [chat.ErrToolsNotSupported]. An
// unknown status goes by the HTTP status. An error body with status 200
// and a stream's chunk that is an error end the call the same way (an
// unknown status there is a server error). Requests that cannot be built
// wrap [chat.ErrBadRequest] and are not sent; a body that is not the
// format expected wraps [chat.ErrBadResponse]; a cancelled context ends a
// call promptly, and the error wraps ctx.Err(). The API key never appears
// in an error, nor in the Model's String form.
//
// # Retries and limits
//
// A request that fails with status 408, 409, 429, 5xx, or with a
// connection error before any byte of a response, is sent again, up to
// Config.MaxRetries times: [DefaultMaxRetries] (2) when it is 0, none with
// [NoRetries]. The wait before retry n is 0.5 s·2^(n-1), at most 8 s, less
// a random jitter of up to a quarter; a Retry-After header, or else the
// error's retryDelay, replaces it, up to 30 s. Once a 2xx response has
// arrived nothing is retried. A reply is bounded by
// Config.MaxResponseBytes, 32 MiB by default, each part counting 256
// bytes more; past it the call ends with an error wrapping
// [chat.ErrBadResponse] that names the limit.
//
// # Tested against
//
// No local server speaks this API: the tests replay 18 recordings of the
// Gemini API itself (testdata/cloud/gemini, recorded by pydantic-ai's test
// suite; testdata/cloud/README.md lists them), gemini-2.0 to gemini-3
// models. Every conversation is replayed whole: each next request is
// built from this package's own reply and must be the request the API
// accepted, signatures on their parts, results in one content, no id of
// this package's. What the recordings show a client must survive,
// besides what is said above: JSON whose separators mix ", " and ",";
// calls without ids next to a streamed call with one; fields to ignore
// (finishMessage on calls, avgLogprobs, safetyRatings, serviceTier,
// promptTokensDetails, responseId); a SAFETY reply whose content is {};
// a MAX_TOKENS reply whose content has no parts.
//
// # The official SDK
//
// The wire types are this package's own, not those of
// google.golang.org/genai, for two reasons. Its Part holds a signature as
// bytes and a call's args as a map, so a part sent back is written anew,
// its keys reordered, rather than as it came. And its package brings
// cloud.google.com/go/auth, gRPC and OpenCensus into every program that
// imports this one, which needs only the standard library. The transport
// is the module's own anyway (retries, the response limit, key
// redaction). The tests hold the types
// to the SDK: every request body they send decodes into genai's Content,
// Tool, ToolConfig and GenerationConfig types, refusing any field they do
// not have, and encodes back to the same JSON, but for the zero values
// those types leave out (a part's empty text, a call's empty args).
package gemini
