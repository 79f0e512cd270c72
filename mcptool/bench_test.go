package mcptool_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/mcptool"
)

// The one tool of the MCP benchmarks, on every side: weather takes
// WeatherArgs and returns a Weather.
type WeatherArgs struct {
	City string `json:"city"`
	Unit string `json:"unit"`
}

type Weather struct {
	City string  `json:"city"`
	Temp float64 `json:"temp"`
	Unit string  `json:"unit"`
	Sky  string  `json:"sky"`
}

func weatherFor(in WeatherArgs) Weather {
	return Weather{City: in.City, Temp: 21.5, Unit: in.Unit, Sky: "clear"}
}

var weatherArgs = json.RawMessage(`{"city":"Oslo","unit":"C"}`)

const weatherJSON = `{"city":"Oslo","temp":21.5,"unit":"C","sky":"clear"}`

// sdkWeatherServer registers weather with the go-sdk itself (mcp.AddTool,
// typed input and output), as someone else's server would.
func sdkWeatherServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "weather-sdk", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "weather", Description: "The weather in a city"},
		func(_ context.Context, _ *mcp.CallToolRequest, in WeatherArgs) (*mcp.CallToolResult, Weather, error) {
			return nil, weatherFor(in), nil
		})
	return s
}

// toolcallWeatherServer serves weather as a toolcall tool through
// mcptool.NewServer.
func toolcallWeatherServer(b *testing.B) *mcp.Server {
	tool := toolcall.MustFunc("weather", "The weather in a city",
		func(_ context.Context, in WeatherArgs) (Weather, error) { return weatherFor(in), nil })
	s, err := mcptool.NewServer(&mcp.Implementation{Name: "weather-toolcall", Version: "v1"}, []toolcall.Tool{tool}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// sdkSession connects a go-sdk client to s over in-memory transports.
func sdkSession(b *testing.B, s *mcp.Server) *mcp.ClientSession {
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.Connect(context.Background(), st, nil); err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// sdkCall is one tools/call of weather by the go-sdk client, with the
// same argument bytes mcptool sends.
func sdkCall(b *testing.B, cs *mcp.ClientSession) *mcp.CallToolResult {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "weather", Arguments: weatherArgs})
	if err != nil {
		b.Fatal(err)
	}
	if res.IsError {
		b.Fatalf("tool error: %v", res.Content)
	}
	return res
}

// BenchmarkMCPCall calls an MCP server's tool (registered with the go-sdk)
// over the in-memory transport: through mcptool, as the toolcall.Tool that
// Client.Tools gives and through a toolcall Manager, and with the go-sdk's
// own ClientSession.CallTool.
func BenchmarkMCPCall(b *testing.B) {
	ctx := context.Background()
	s := sdkWeatherServer()

	b.Run("mcptool", func(b *testing.B) {
		tool := weatherTool(b, s)
		check(b, tool, weatherJSON)
		for b.Loop() {
			if _, err := tool.Call(ctx, weatherArgs); err != nil {
				b.Fatal(err)
			}
		}
	})

	b.Run("sdk", func(b *testing.B) {
		cs := sdkSession(b, s)
		if res := sdkCall(b, cs); res.StructuredContent == nil {
			b.Fatal("no structured content")
		}
		for b.Loop() {
			sdkCall(b, cs)
		}
	})

	b.Run("manager", func(b *testing.B) {
		tools := []toolcall.Tool{weatherTool(b, s)}
		m := toolcall.NewManager()
		req := &chat.Request{Messages: []chat.Message{chat.UserMessage("The weather in Oslo?")}}
		reply := &chat.Response{Message: chat.AssistantMessage("", chat.ToolCall{ID: "call_1", Name: "weather", Arguments: weatherArgs})}
		resp, err := m.Execute(ctx, tools, req, reply)
		if err != nil || resp.Executions[0].IsError || !sameJSON(resp.Executions[0].Result, weatherJSON) {
			b.Fatalf("got %+v, %v", resp.Executions, err)
		}
		for b.Loop() {
			if _, err := m.Execute(ctx, tools, req, reply); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// weatherTool connects an mcptool Client to s and returns its weather
// tool.
func weatherTool(b *testing.B, s *mcp.Server) toolcall.Tool {
	c, err := mcptool.Connect(context.Background(), mcptool.Remote{Name: "weather", Transport: func() (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.Connect(context.Background(), st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	tools, err := c.Tools(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	if len(tools) != 1 || tools[0].Definition().Name != "weather" {
		b.Fatalf("tools: %v", tools)
	}
	return tools[0]
}

func check(b *testing.B, tool toolcall.Tool, want string) {
	got, err := tool.Call(context.Background(), weatherArgs)
	if err != nil || !sameJSON(got, want) {
		b.Fatalf("got %q, %v; want %q", got, err, want)
	}
}

// sameJSON reports whether a and b are the same JSON value: the go-sdk
// and mcptool each re-encode structured content, and neither keeps the
// order of its keys.
func sameJSON(a, b string) bool {
	var va, vb any
	return json.Unmarshal([]byte(a), &va) == nil && json.Unmarshal([]byte(b), &vb) == nil && reflect.DeepEqual(va, vb)
}

// BenchmarkMCPServe has the go-sdk client call weather over the in-memory
// transport, served as a toolcall tool by mcptool.NewServer and as a tool
// registered with the go-sdk's own mcp.AddTool.
func BenchmarkMCPServe(b *testing.B) {
	for _, side := range []struct {
		name   string
		server func(*testing.B) *mcp.Server
	}{
		{"mcptool", toolcallWeatherServer},
		{"sdk", func(*testing.B) *mcp.Server { return sdkWeatherServer() }},
	} {
		b.Run(side.name, func(b *testing.B) {
			cs := sdkSession(b, side.server(b))
			res := sdkCall(b, cs)
			if text, ok := res.Content[0].(*mcp.TextContent); !ok || !sameJSON(text.Text, weatherJSON) {
				b.Fatalf("content: %#v", res.Content[0])
			}
			for b.Loop() {
				sdkCall(b, cs)
			}
		})
	}
}

// BenchmarkMCPPaired measures the mcptool and sdk sides of BenchmarkMCPCall
// (call) and BenchmarkMCPServe (serve) in one loop, one call of each per
// iteration, in turns: on a shared machine, whatever load comes and goes
// falls on both sides alike, which separate benchmarks cannot promise. It
// reports each side's mean ns per call and mcptool's time as a multiple
// of the sdk's (x-sdk); its ns/op, B/op and allocs/op are per pair of
// calls.
func BenchmarkMCPPaired(b *testing.B) {
	ctx := context.Background()
	b.Run("call", func(b *testing.B) {
		s := sdkWeatherServer()
		tool := weatherTool(b, s)
		cs := sdkSession(b, s)
		paired(b, func() {
			if _, err := tool.Call(ctx, weatherArgs); err != nil {
				b.Fatal(err)
			}
		}, func() { sdkCall(b, cs) })
	})
	b.Run("serve", func(b *testing.B) {
		viaToolcall := sdkSession(b, toolcallWeatherServer(b))
		viaSDK := sdkSession(b, sdkWeatherServer())
		paired(b, func() { sdkCall(b, viaToolcall) }, func() { sdkCall(b, viaSDK) })
	})
}

func paired(b *testing.B, mcptoolSide, sdkSide func()) {
	sides := [2]func(){mcptoolSide, sdkSide}
	var took [2]time.Duration
	for i := 0; b.Loop(); i++ {
		for j := range 2 {
			side := (i + j) % 2 // either side goes first in turn
			start := time.Now()
			sides[side]()
			took[side] += time.Since(start)
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(took[0].Nanoseconds())/n, "mcptool-ns/call")
	b.ReportMetric(float64(took[1].Nanoseconds())/n, "sdk-ns/call")
	b.ReportMetric(float64(took[0])/float64(took[1]), "x-sdk")
}
