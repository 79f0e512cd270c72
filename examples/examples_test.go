package examples_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// `go test ./... -update` passes -update to every package; this one has no
// golden files but must accept the flag.
var _ = flag.Bool("update", false, "no golden files in this package")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// exampleCase is one run of an example program and what its output must
// contain, line by line.
type exampleCase struct {
	name    string
	args    []string
	want    []string // lines that must appear in stdout, in this order
	wantErr string   // when set, the run must fail and stderr contain it
}

var cases = []exampleCase{
	{name: "quickstart", want: []string{
		"Offline: a scripted model (package toolcalltest) plays the model. No network, no key.",
		"user:         What's the weather in Paris?",
		`tool call:    currentWeather {"location":"Paris","unit":"C"}`,
		`tool result:  {"location":"Paris","temperature":30,"unit":"C","sky":"sunny"}`,
		"answer:       It is 30°C and sunny in Paris.",
		"model rounds: 2, tokens: 30",
	}},
	{name: "quickstart", args: []string{"-provider", "scripted"}, want: []string{
		"answer:       It is 30°C and sunny in Paris.",
	}},
	{name: "quickstart", args: []string{"-provider", "nope"}, wantErr: "-provider must be scripted, openai, responses, anthropic, gemini or ollama, not nope"},
	{name: "datetime", want: []string{
		"tool getCurrentDateTime: Get the current date and time in the user's timezone",
		`  schema: {"type":"object","properties":{},"required":[],"additionalProperties":false}`,
		"tool setAlarm: Set a user alarm for the given time",
		"round 1: getCurrentDateTime {} -> 2025-05-01T10:00:00+02:00",
		`round 2: setAlarm {"time":"2025-05-01T10:10:00+02:00"} -> Success`,
		"answer: Your alarm is set for 10:10.",
		"alarm set for 2025-05-01 10:10 CEST",
	}},
	{name: "mcp", want: []string{
		"server: this program, started as `mcp serve` over stdio",
		"  tool getCurrentDateTime: Get the current date and time in the user's timezone",
		`    schema: {"additionalProperties":false,"properties":{},"required":[],"type":"object"}`,
		"  tool setAlarm: Set a user alarm for the given time",
		"user: Can you set an alarm 10 minutes from now?",
		"round 1: getCurrentDateTime {} -> 2025-05-01T10:00:00+02:00",
		`round 2: setAlarm {"time":"2025-05-01T10:10:00+02:00"} -> Alarm 1 set for 2025-05-01 10:10`,
		"answer: Your alarm is set for 10:10.",
		"server closed",
	}},
	{name: "weather", want: []string{
		`      "enum": [`,
		`tool currentWeather {"location":"Paris","unit":"C"} -> {"temp":30,"unit":"C"}`,
		`tool currentWeather {"location":"New York","unit":"F"} -> {"temp":71.6,"unit":"F"}`,
		"answer: It is 30°C in Paris and 71.6°F in New York.",
	}},
	{name: "customer", want: []string{
		`  tool getCustomerInfo {"id":42} -> {"id":42,"name":"Ada Lovelace","email":"ada@example.com"}`,
		`  tool getCustomerInfo {"id":42} -> {"id":42,"name":"Grace Hopper","email":"grace@example.org"}`,
		`schema of getCustomerInfo: {"type":"object","properties":{"id":{"type":"integer","description":"Customer id"}},"required":["id"],"additionalProperties":false}`,
		`"tenantId" in any request sent to the model: false`,
		`"acme" in any request sent to the model: false`,
		`"globex" in any request sent to the model: false`,
	}},
	{name: "returndirect", want: []string{
		"returned directly: true, model requests: 1",
		"result 1: Order A-1001: shipped on 2025-05-02, arriving 2025-05-05.",
		"result 2: Order A-1002: being packed.",
		"user: How do I return a parcel?",
		"  returned directly: true, model rounds: 1",
		"user: Do you gift-wrap?",
		"  returned directly: false, model rounds: 2",
	}},
	{name: "approval", want: []string{
		"call ended: toolcall: paused: 3 tool calls wait for a decision",
		"  ran:     call_1 getBalance {} -> 1000 EUR",
		`  waiting: call_2 transfer {"to":"Ana","amount":50} (approval)`,
		`  waiting: call_4 transfer {"to":"Cy","amount":300} (approval)`,
		"model requests so far: 1",
		"stored as JSON: 3 pending, 1 done, 2 messages of history, round 1",
		`another process, a fresh client; decisions: {"call_2":{"allow":true},"call_3":{"deny":"Bo is not a known payee"},"call_4":{"allow":true,"arguments":{"to":"Cy","amount":200}}}`,
		"an edited copy: toolcall: invalid paused state: its seal does not match: it was sealed with another key of that id, or for another owner, or edited after it was sealed",
		"for another account: toolcall: invalid paused state: its seal does not match: it was sealed with another key of that id, or for another owner, or edited after it was sealed",
		"the resumed call failed after its transfers: model server unavailable",
		`  ran:     call_2 transfer {"to":"Ana","amount":50} -> sent 50 EUR to Ana`,
		`  refused: call_3 transfer {"to":"Bo","amount":900} -> tool call denied: Bo is not a known payee`,
		`  ran:     call_4 transfer {"to":"Cy","amount":200} -> sent 200 EUR to Cy`,
		"the stored state resumed again: true",
		"  ran:     call_5 getBalance {} -> 750 EUR",
		"model requests of the resumed call: 2",
		`the model was sent its own call_4 {"to":"Cy","amount":300} with the result "sent 200 EUR to Cy"`,
		"transfers made: 50 EUR to Ana, 200 EUR to Cy",
		"== Part 2: a live approver",
		"  ran:     call_1 getBalance {} -> 750 EUR",
		`  waiting: call_2 transfer {"to":"Ana","amount":20} (approval)`,
		`  ran:     call_2 transfer {"to":"Ana","amount":20} -> sent 20 EUR to Ana`,
		`  refused: call_1 transfer {"to":"Bo","amount":500} -> tool call denied: a viewer may not change the account`,
		"transfers made: 50 EUR to Ana, 200 EUR to Cy, 20 EUR to Ana",
	}},
	{name: "longrunning", want: []string{
		`  round 1: call_1 reimburse {"purpose":"taxi","amount":45} -> {"status":"paid","amount":45}`,
		`  waiting: call_2 reimburse {"purpose":"hotel","amount":450}`,
		"    reason: ticket T-1: a manager must approve 450 EUR for hotel",
		"the manager approves T-1, which call_2 waits for",
		`  round 1: call_2 reimburse {"purpose":"hotel","amount":450} -> {"status":"approved","ticket":"T-1","approver":"Mia"}`,
		"reimburse ran 2 times: the manager's answer did not run it again",
		`  waiting: call_1 forecast {"city":"Lyon"}`,
		"    reason: credential: an API key for api.weather.example",
		`  round 1: call_1 forecast {"city":"Lyon"} -> Lyon tomorrow: 22°C, sunny`,
		"the key in the paused state or any request sent to the model: false",
		`  round 2: call_2 homeWeather {} -> Lyon: 18°C, cloudy`,
		`  call_1 wrote {"homeCity":"Lyon","homeCoords":"45.76,4.84"}`,
		`Response.State: {"homeCity":"Lyon","homeCoords":"45.76,4.84"}`,
		"  round 1: call_1 homeWeather {} -> Lyon: 18°C, cloudy",
		"the coordinates in any request sent to the model: false",
	}},
	{name: "manualloop", want: []string{
		`round 1: model asks for squareRoot {"x":16}`,
		"round 1: squareRoot returned 4",
		`round 2: model asks for sum {"a":4,"b":2.5}`,
		"round 2: sum returned 6.5",
		"round 3: answer: The square root of 16 is 4; plus 2.5 makes 6.5.",
		"conversation: 6 messages",
	}},
	{name: "byname", want: []string{
		"registered: currentTime, currentWeather",
		"  offered to the model: currentWeather",
		"  offered to the model: currentTime, echo",
		`  error: toolcall: tool not found: no tool named "stockPrice" is in the client's registry`,
		"  is ErrToolNotFound: true",
		"  model asked: false",
	}},
	{name: "dynamic", want: []string{
		"user: What are the details of booking B-77?",
		"  tools offered: getBookingDetails",
		"user: Hello there",
		"  tools offered: (none)",
	}},
	{name: "tracing", want: []string{
		"invoke_agent weather assistant [internal]",
		"    chat gpt-4o-mini [client]",
		"    execute_tool currentWeather [internal]",
		"        weather service lookup [internal]",
		"    execute_tool flightStatus [internal] ERROR *errors.errorString",
		"  gen_ai.client.token.usage {gen_ai.operation.name=chat, gen_ai.request.model=gpt-4o-mini, gen_ai.response.model=gpt-4o-mini-2024-07-18, gen_ai.token.type=input}: 2 values, sum 20 {token}",
	}},
	{name: "structured", want: []string{
		"stock {} -> M and L",
		`final_answer {"item":"shirt","qty":20,"size":"M"} -> invalid arguments for tool "final_answer": qty: must be <= 10`,
		`final_answer {"item":"shirt","qty":10,"size":"M"} -> answer received`,
		"order: {Item:shirt Qty:10 Size:M}",
		"repairs: 1, model requests: 3",
	}},
	{name: "streaming", want: []string{
		"Let me check both cities.",
		`[tool call   call_1 currentWeather {"location":"Paris"}]`,
		`[tool call   call_2 currentWeather {"location":"Oslo"}]`,
		"[tool result call_1 30°C, sunny]",
		"[tool result call_2 12°C, rain]",
		"Paris is warm and sunny at 30°C, while Oslo is cooler at 12°C with rain.",
		"[done: 20 text pieces, 2 model rounds, 2 tool calls]",
	}},
	{name: "errors", want: []string{
		`round 1 ERROR currentWeather {"location":"Paris","unit":"celsius"}`,
		`  -> invalid arguments for tool "currentWeather": unit: must be one of "C", "F"`,
		`round 1 ERROR flightStatus {"flight":"XY999"}`,
		"  -> no flight XY999 today",
		`round 2 ok    currentWeather {"location":"Paris","unit":"C"}`,
		"tool chargeCard, call call_1, fatal: true",
		"  tool      tool chargeCard failed",
	}},
	{name: "ollama", want: []string{
		"  [server] POST /api/chat model=qwen2.5 stream=false tools=get_weather",
		`tool call:   call_kfi8g1mg get_weather {"city":"Paris"}`,
		`  [server]   messages: user, assistant(get_weather {"city":"Paris"}), tool(get_weather: {"city":"Paris","temperature":21,"sky":"sunny"})`,
		"answer: It is 21°C and sunny in Paris.",
		"model rounds: 2, tokens: 355 prompt + 14 completion",
	}},
	{name: "ollama", args: []string{"-stream"}, want: []string{
		"  [server] POST /api/chat model=qwen2.5 stream=true tools=get_weather",
		`tool call:   call_kfi8g1mg get_weather {"city":"Paris"}`,
		`text piece:  "21°C "`,
		"answer: It is 21°C and sunny in Paris.",
	}},
	{name: "anthropic", want: []string{
		"  [server] POST /v1/messages model=claude-sonnet-4-5 stream=false tools=get_weather anthropic-version=2026-10-21",
		`tool call:   toolu_01D7FLrfh4GYq7yT1ULFeyMV get_weather {"city":"Paris"}`,
		`  [server]   messages: user(text), assistant(tool_use get_weather {"city":"Paris"}), user(tool_result toolu_01D7FLrfh4GYq7yT1ULFeyMV: {"city":"Paris","temperature":21,"sky":"sunny"})`,
		"answer: It is 21°C and sunny in Paris.",
		"model rounds: 2, tokens: 1225 prompt (800 from the cache) + 66 completion",
	}},
	{name: "anthropic", args: []string{"-stream"}, want: []string{
		"  [server]   streaming 2 input_json fragments",
		`tool call:   toolu_01D7FLrfh4GYq7yT1ULFeyMV get_weather {"city": "Paris"}`,
		`text piece:  "21°C "`,
		"answer: It is 21°C and sunny in Paris.",
	}},
	{name: "gemini", want: []string{
		"  [server] POST /v1beta/models/gemini-2.5-flash:generateContent tools=get_weather key in x-goog-api-key: true",
		`tool call:   call_0 get_weather {"city":"Paris"}`,
		`  [server]   contents: user(text), model(functionCall {"args":{"city":"Paris"},"name":"get_weather"} with its signature), user(functionResponse get_weather {"output":"Sunny, 22C in Paris"})`,
		"answer: The weather in Paris is sunny with a temperature of 22C.",
		"model rounds: 2, tokens: 137 prompt + 78 completion (48 thinking)",
	}},
	{name: "gemini", args: []string{"-stream"}, want: []string{
		"  [server] POST /v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse tools=get_country key in x-goog-api-key: true",
		"tool call:   call_0 get_country {}",
		`  [server]   contents: user(text), model(functionCall {"name":"get_country","args":{}} with its signature), user(functionResponse get_country {"output":"Mexico"})`,
		`text piece:  " is Mexico City."`,
		"answer: The capital of Mexico is Mexico City.",
	}},
	{name: "openai", want: []string{
		"  [server] POST /v1/chat/completions model=gpt-4o-mini stream=false tools=get_weather",
		`tool call:   bV8QPhBwjnr8swJ3TeacS0uh9AwvlJsL get_weather {"city":"Paris"}`,
		`  [server]   messages: user, assistant(get_weather "{\"city\":\"Paris\"}"), tool(bV8QPhBwjnr8swJ3TeacS0uh9AwvlJsL: {"city":"Paris","temperature":21,"sky":"sunny"})`,
		"answer: It is 21°C and sunny in Paris.",
		"model rounds: 2, tokens: 642 prompt + 19 completion",
	}},
	{name: "openai", args: []string{"-stream"}, want: []string{
		"  [server]   streaming 0 text and 5 tool call fragments",
		`tool call:   bV8QPhBwjnr8swJ3TeacS0uh9AwvlJsL get_weather {"city":"Paris"}`,
		`text piece:  "21°C "`,
		"answer: It is 21°C and sunny in Paris.",
	}},
}

// TestExamples builds every example program once, with one go build, and
// runs each case in parallel, offline: without the OPENAI_*, ANTHROPIC_*
// and OLLAMA_* variables, so that no example reaches for a real server. It also checks
// that every example program has a case.
func TestExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs every example program; skipped with -short")
	}
	goTool, err := exec.LookPath("go") // go test puts its own go first in PATH
	require.NoError(t, err)
	bin := t.TempDir()
	// No debug information: linking is most of the build time.
	build := exec.Command(goTool, "build", "-ldflags=-s -w", "-o", bin+string(filepath.Separator), "./...")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build ./examples/...:\n%s", out)

	programs, err := filepath.Glob(filepath.Join("*", "main.go"))
	require.NoError(t, err)
	tested := map[string]bool{}
	for _, c := range cases {
		tested[c.name] = true
	}
	for _, p := range programs {
		assert.True(t, tested[filepath.Dir(p)], "example %s has no case in TestExamples", filepath.Dir(p))
	}

	env := offlineEnv()
	for _, c := range cases {
		t.Run(strings.Join(append([]string{c.name}, c.args...), " "), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, filepath.Join(bin, c.name), c.args...)
			cmd.Env = env
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if c.wantErr != "" {
				var exit *exec.ExitError
				require.ErrorAs(t, err, &exit, "the run must fail")
				assert.Contains(t, stderr.String(), c.wantErr)
				return
			}
			require.NoError(t, err, "stderr:\n%s", stderr.String())
			assert.Empty(t, stderr.String())
			assertLinesInOrder(t, stdout.String(), c.want)
		})
	}
}

// assertLinesInOrder checks that each wanted line is a whole line of out,
// after the line matched by the previous one.
func assertLinesInOrder(t *testing.T, out string, want []string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	next := 0
	for _, w := range want {
		found := false
		for i := next; i < len(lines); i++ {
			if lines[i] == w {
				next, found = i+1, true
				break
			}
		}
		if !found {
			assert.Fail(t, "missing output line", "want, after line %d:\n%s\n\noutput:\n%s", next, w, out)
			return
		}
	}
}

// offlineEnv is the environment without the variables that point the
// examples at real servers.
func offlineEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "OPENAI_") || strings.HasPrefix(kv, "ANTHROPIC_") || strings.HasPrefix(kv, "OLLAMA_") || strings.HasPrefix(kv, "GEMINI_") || strings.HasPrefix(kv, "GOOGLE_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}
