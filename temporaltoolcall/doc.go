// Package temporaltoolcall runs toolcall's tool-calling loop as a Temporal
// workflow, so that a conversation survives a crashed worker and its calls
// spread over many machines. It is named like oteltoolcall, so that it does
// not collide with go.temporal.io/sdk/temporal, and lives in a module of its
// own, so that the toolcall module requires no Temporal module.
//
// A worker process holds the model, the tools and the secrets:
//
//	w := worker.New(c, "conversations", worker.Options{})
//	tw := &temporaltoolcall.Worker{Model: model, Tools: tools}
//	if err := tw.Register(w); err != nil { ... }
//	err = w.Run(worker.InterruptCh())
//
// and any process starts conversations and waits for them:
//
//	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: "conversations"},
//		temporaltoolcall.WorkflowName, temporaltoolcall.Input{Messages: msgs})
//	resp, err := temporaltoolcall.Result(ctx, run) // a *toolcall.Response, as Prompt.Call's
//
// # The loop
//
// The workflow Conversation does what Prompt.Call does, with the same
// Response and errors: each model request is an activity (ModelActivity),
// each tool call another (ToolActivity), run by the worker's Manager, so
// arguments are checked against the schemas and bad ones, like calls of
// unknown tools, go back to the model. The calls of one reply run as
// parallel activities, at most Input.Concurrency at once, and their results
// are in call order. returnDirect, the iteration limit (and
// Input.AnswerAtLimit), cut replies (none of their calls runs), empty
// answers (an error) and the session state (toolcall.SetState; the tools
// of later rounds read it) hold as in Prompt.Call. A call that aborts the
// conversation (toolcall.ErrFatal) ends it as in Prompt.Call too: the calls
// of its round still running are cancelled and waited for, so that none
// runs on, and the Response returned with the error records the round.
// Result maps a failed conversation's error back to Call's sentinels
// (toolcall.ErrMaxIterations and the others) and returns the Response so
// far with it. One difference: a tool's toolcall.CallInfo.History holds
// only the reply, with only its own call, since each call runs apart and
// carries no more; a tool named in Worker.ToolsWithHistory gets the
// conversation before the reply too.
//
// A tool call whose arguments are not JSON, which the history cannot hold
// as they are, is recorded with its text as a JSON string; its tool, and
// the model, are told what was wrong with the text, as in Prompt.Call.
//
// # Typed answers
//
// Input.Output asks for the final answer as data, as Prompt.Answer does:
// the answer must pass a JSON Schema, made from a Go type by
// toolcall.SchemaFor, and Answer decodes it from the Response:
//
//	schema, err := toolcall.SchemaFor(Order{})
//	in := temporaltoolcall.Input{Messages: msgs, Output: &chat.OutputFormat{Schema: schema}}
//	... // start the conversation, then
//	resp, err := temporaltoolcall.Result(ctx, run)
//	var o Order
//	err = temporaltoolcall.Answer(resp, &o)
//
// The worker's tools run in the rounds before the answer. It is asked for
// natively where the worker's model can (a chat.StructuredModel), through
// a final_answer tool elsewhere (Input.OutputMode forces either); giving
// it runs no activity, so neither Worker.Hooks nor the options of the
// worker's Manager (an error handler, argument limits) see that call;
// Input.MaxPayloadBytes bounds it, as it bounds the reply. The workflow
// checks the answer against the schema the model was sent, with the
// checker of tool arguments, and one that breaks it goes back to the
// model with the violations, in Prompt.Call's words, up to
// Input.MaxAnswerRepairs times within the iteration limit; then Result
// returns a *toolcall.AnswerError with the last answer given. A
// conversation that waits for decisions still ends with the typed answer.
//
// The workflow knows the schema, not the Go type: a value the schema
// allows and the type cannot hold (300 for an int8, text that is not an
// address for a netip.Addr) is not sent back for repair, as Prompt.Call
// sends it; Answer, which checks the answer again against the schema of
// v's type and decodes it, refuses it with an error. State such bounds in
// the type's tags (minimum, maximum, format) to have the model repair
// them. The mode the worker chose, and its schema (strict with
// toolcall.WithStrictTools), are recorded in the history, so that a
// replay on any worker asks as the first run did.
//
// # Decisions
//
// A call that waits (toolcall.WithNeedsApproval, an approver in Worker.Options,
// a tool returning toolcall.Pause, as a long-running tool does) makes the
// workflow wait for a toolcall.Decision, delivered as the Update
// UpdateDecide (Decide sends it) with a map from call id to decision, as
// Prompt.Resume takes. Its validator refuses, before they enter the
// history, decisions for calls that do not wait, decisions that decide
// nothing, and contradictory ones (two of Allow, Deny and Result; Arguments
// without Allow). The other calls of the reply go on meanwhile. The query
// QueryPending (Pending) returns the calls that wait. Input.DecisionTimeout
// bounds the wait: past it a call is denied and the model told so.
// Workers may stop while calls wait; the decided call runs on whichever
// worker is there then.
//
// Any workflow of the namespace can schedule ToolActivity on the task
// queue with an input of its choosing, so a decision travels signed: the
// workflow signs each decision its Update accepted with Worker.DecisionKey,
// for that call of that run, and the tool activity runs a decided call
// only with that signature, checked against the run that Temporal says
// scheduled it. Give every worker of the task queue the same DecisionKey
// (32 bytes or more, from your secret store); without one, a decided call
// fails the conversation. To rotate it, give every worker the new key and
// the old one in OldDecisionKeys until the conversations decided with the
// old one have run. The namespace remains the trust boundary: a
// member who can send Updates decides waiting calls; no one can have a
// call run with a decision the conversation did not accept, nor override
// the worker's approver. See SECURITY.md.
//
// # What runs twice
//
// A completed activity never runs again: Temporal records its result. A
// tool activity records heartbeats while its tool runs, so that a lost
// worker is noticed within Input.HeartbeatTimeout (DefaultHeartbeatTimeout)
// rather than after its StartToCloseTimeout (the tool's own timeout, set
// with toolcall.WithTimeout, plus a minute, or Input.ToolTimeout). A call
// whose worker was lost runs again, up to Input.ToolAttempts times, only
// when its tool says that is safe: Metadata.ReadOnly or Metadata.Idempotent,
// as MCP's readOnlyHint and idempotentHint give them. Any other call gets
// one attempt, and the model is told: "the worker running this call was
// lost; it may or may not have taken effect". Input.Retry changes the policy
// per tool name: true runs a tool's lost calls again, false never does.
//
// A model request is tried up to Input.ModelAttempts times with backoff
// (1s, doubling, at most a minute), or after the wait the server asked for
// (chat.ProviderError.RetryAfter, from Retry-After), and its heartbeats
// notice a lost worker the same way. A reply too large to record fails the
// conversation with ErrPayloadTooLarge, naming it, without asking again.
// The errors a retry cannot fix, chat.ErrBadRequest, ErrUnauthorized,
// ErrModelNotFound, ErrToolsNotSupported and ErrQuotaExceeded, are not
// retried. A provider that retries on its own multiplies the attempts:
// turn its retries off, or count them in ModelAttempts.
//
// # Secrets and history
//
// The tool context never enters Temporal's history: Worker.ToolContext
// supplies it on the worker side, from the conversation's workflow id and
// Input.Key (say, a tenant id that selects the tenant's credentials). Its
// values win over the session state's. Everything else does enter the
// history: the messages, the tool calls' arguments and results, the
// session state (as JSON: numbers come back as float64) and the Response.
// To keep them from the server, encrypt payloads with a
// converter.PayloadCodec, and failures too: a failed conversation's
// failure holds the error's text in its message (a fatal tool error says
// what the tool said) and the Response so far in its details, which the
// default failure converter writes without the codec. Give both
// converters to the client of the workers and of the starters alike:
//
//	dc := converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), myAESCodec)
//	fc := temporal.NewDefaultFailureConverter(temporal.DefaultFailureConverterOptions{
//		DataConverter: dc, EncodeCommonAttributes: true})
//	c, err := client.Dial(client.Options{DataConverter: dc, FailureConverter: fc})
//
// Then nothing of a conversation is readable in the server's history; the
// error types, which Result maps back to the sentinels, stay readable.
//
// # History limits
//
// The server refuses a payload over 2 MiB (and warns at 512 KiB), and a
// history over 50 MiB or 51,200 events; it suggests continuing as new at
// 4 MiB. Each model request carries the whole conversation, so the
// history grows with the square of the rounds; a tool call carries its own
// call only, unless its tool is in Worker.ToolsWithHistory. What one
// workflow task schedules goes to the server in one message (4 MiB by
// default): the tool calls scheduled together stay under 3 MiB, and a
// round's under 24 MiB, or the conversation fails with ErrPayloadTooLarge,
// saying which. The workflow keeps each payload within
// Input.MaxPayloadBytes (a large tool result is cut first by
// toolcall.Limits.MaxResultBytes, 1 MiB by default), continues as new,
// carrying the conversation, after a round in which the server suggested
// it, and fails with ErrPayloadTooLarge, naming the payload, when one
// cannot fit. The Response holds the results twice (in the History and in
// the Executions), so the conversation one workflow carries is bounded by
// about half of MaxPayloadBytes.
//
// # Determinism
//
// The workflow code uses no map iteration order, wall clock or randomness
// outside the workflow APIs; its tests replay histories recorded from a
// real server through worker.NewWorkflowReplayer, so a change that would
// break running conversations fails them. A change of the commands the
// workflow issues goes behind workflow.GetVersion (as the cancelling of a
// round's calls on an abort does), and the histories each release records
// are kept and replayed by every later one, so that an upgrade does not
// break the conversations running through it.
//
// # Observability
//
// Worker.Hooks observe each model request and tool call inside its
// activity, oteltoolcall's hooks included; the spans they open carry the
// workflow id and run id as temporalWorkflowID and temporalRunID, the
// attributes of Temporal's own tracing interceptor. BeforeCall and
// AfterCall are not called: the call is the workflow.
package temporaltoolcall
