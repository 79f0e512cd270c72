package toolcall

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
)

// The workload of the invoke benchmark (issue: tools, acceptance 5).
type benchOptions struct {
	Detailed bool   `json:"detailed"`
	Lang     string `json:"lang,omitempty"`
}

type benchArgs struct {
	City    string       `json:"city"`
	Unit    string       `json:"unit" jsonschema:"enum=C,enum=F"`
	Days    int          `json:"days" jsonschema:"minimum=1,maximum=14"`
	Tags    []string     `json:"tags,omitempty"`
	Options benchOptions `json:"options"`
}

type benchDay struct {
	Day  int     `json:"day"`
	High float64 `json:"high"`
	Low  float64 `json:"low"`
}

type benchResult struct {
	City    string     `json:"city"`
	TempC   float64    `json:"temp_c"`
	Unit    string     `json:"unit"`
	Summary string     `json:"summary"`
	Days    []benchDay `json:"days"`
}

func benchWeather(_ context.Context, in benchArgs) (benchResult, error) {
	r := benchResult{City: in.City, TempC: 21.5, Unit: in.Unit, Summary: "mild and dry"}
	r.Days = make([]benchDay, in.Days)
	for i := range r.Days {
		r.Days[i] = benchDay{Day: i + 1, High: 20 + float64(i), Low: 10.25 + float64(i)}
	}
	return r, nil
}

var benchInput = json.RawMessage(`{"city":"Copenhagen","unit":"C","days":3,"tags":["a","b"],"options":{"detailed":true,"lang":"en"}}`)

func BenchmarkInvoke(b *testing.B) {
	ctx := context.Background()
	tool, err := NewFunc("weather", "Weather forecast", benchWeather)
	if err != nil {
		b.Fatal(err)
	}
	want, _ := tool.Call(ctx, benchInput)
	b.Run("toolcall", func(b *testing.B) {
		// What the Manager does per call: validate against the schema,
		// decode, call, convert (the tool validates as it decodes).
		b.ReportAllocs()
		for b.Loop() {
			out, err := tool.Call(ctx, benchInput)
			if err != nil || len(out) != len(want) {
				b.Fatal(err, out)
			}
		}
	})
	b.Run("handwritten", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var in benchArgs
			if err := json.Unmarshal(benchInput, &in); err != nil {
				b.Fatal(err)
			}
			res, err := benchWeather(ctx, in)
			if err != nil {
				b.Fatal(err)
			}
			out, err := json.Marshal(res)
			if err != nil || len(out) != len(want) {
				b.Fatal(err, string(out))
			}
		}
	})
}

func BenchmarkDefine(b *testing.B) {
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			schemaCache = sync.Map{}
			if _, err := NewFunc("weather", "Weather forecast", benchWeather); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		if _, err := NewFunc("weather", "Weather forecast", benchWeather); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := NewFunc("weather", "Weather forecast", benchWeather); err != nil {
				b.Fatal(err)
			}
		}
	})
}
