package toolcall_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
)

type shout string

type pointerText struct{ S string }

func (p *pointerText) MarshalText() ([]byte, error) { return []byte("text " + p.S), nil }

type valueJSON struct{ N int }

func (v valueJSON) MarshalJSON() ([]byte, error) { return []byte(strconv.Itoa(v.N * 2)), nil }

type row struct {
	Name  string      `json:"name"`
	F     float64     `json:"f"`
	Tags  []string    `json:"tags,omitempty"`
	Inner pointerText `json:"inner"`
}

// resultOf returns the text a func tool returning v sends, and the
// error.
func resultOf[Out any](t *testing.T, v Out) (string, error) {
	t.Helper()
	tool, err := toolcall.NewFunc("r", "Result", func(context.Context, struct{}) (Out, error) { return v, nil })
	require.NoError(t, err)
	return tool.Call(context.Background(), nil)
}

// sameAsConvertResult checks that a func tool returning v sends what
// ConvertResult makes of v: the typed conversion a func tool does is the
// default conversion, value for value.
func sameAsConvertResult[Out any](t *testing.T, v Out) {
	t.Helper()
	want, wantErr := toolcall.ConvertResult(v)
	got, err := resultOf(t, v)
	if wantErr != nil {
		require.Error(t, err, "got %s", got)
		assert.Equal(t, wantErr.Error(), err.Error())
		return
	}
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

func TestFuncToolResults(t *testing.T) {
	t.Parallel()
	seven := 7
	var nilRow *row
	sameAsConvertResult(t, "as is: <&>")
	sameAsConvertResult(t, shout("named string: JSON"))
	sameAsConvertResult(t, json.RawMessage(`{"raw": true}`))
	sameAsConvertResult(t, json.RawMessage(nil))
	sameAsConvertResult(t, []byte("bytes"))
	sameAsConvertResult(t, []byte(nil))
	sameAsConvertResult(t, 42)
	sameAsConvertResult(t, int8(-3))
	sameAsConvertResult(t, 2.5)
	sameAsConvertResult(t, math.NaN())
	sameAsConvertResult(t, float32(0.1))
	sameAsConvertResult(t, true)
	sameAsConvertResult(t, &seven)
	sameAsConvertResult(t, nilRow)
	sameAsConvertResult(t, row{Name: "a\u2028<b>", F: 1e21, Tags: []string{"x"}, Inner: pointerText{"p"}})
	sameAsConvertResult(t, &row{Name: "p", Inner: pointerText{"addressable"}})
	sameAsConvertResult(t, []row{{Name: "s", Inner: pointerText{"in a slice"}}})
	sameAsConvertResult(t, [2]row{{Name: "array"}})
	sameAsConvertResult(t, row{F: math.Inf(1)})
	sameAsConvertResult(t, valueJSON{3})
	sameAsConvertResult(t, pointerText{"not addressable"})
	sameAsConvertResult(t, map[string]any{"k": []any{1, "v"}})
	sameAsConvertResult(t, time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	sameAsConvertResult[any](t, nil)
	sameAsConvertResult[any](t, "interface holding a string")
	sameAsConvertResult[any](t, row{Name: "in an interface"})
	sameAsConvertResult[fmt.Stringer](t, time.Second)
	sameAsConvertResult[error](t, nil)

	_, err := resultOf(t, math.Inf(-1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "toolcall: converting result of type float64: json: unsupported value: -Inf")
}

// spy keeps the pointer its UnmarshalJSON was called on, as a type may:
// the storage it points to must not be reused by later calls.
type spy struct{ S string }

var (
	spyMu   sync.Mutex
	spySeen []*spy
)

func (s *spy) UnmarshalJSON(b []byte) error {
	spyMu.Lock()
	defer spyMu.Unlock()
	spySeen = append(spySeen, s)
	return json.Unmarshal(b, &s.S)
}

func TestFuncToolStorage(t *testing.T) {
	t.Parallel()
	type args struct {
		N    int      `json:"n"`
		Tags []string `json:"tags"`
		Spy  spy      `json:"spy"`
	}
	spyMu.Lock()
	spySeen = nil // an earlier run's (go test -count)
	spyMu.Unlock()
	tool, err := toolcall.NewFunc("spy", "Spy", func(_ context.Context, in args) (args, error) { return in, nil })
	require.NoError(t, err)
	for i := range 20 {
		out, err := tool.Call(context.Background(), json.RawMessage(fmt.Sprintf(`{"n":%d,"tags":["t%d"],"spy":"s%d"}`, i, i, i)))
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf(`{"n":%d,"tags":["t%d"],"spy":{"S":"s%d"}}`, i, i, i), out)
	}
	spyMu.Lock()
	defer spyMu.Unlock()
	require.Len(t, spySeen, 20)
	for i, s := range spySeen {
		assert.Equal(t, "s"+strconv.Itoa(i), s.S, "storage a method kept was reused")
	}
}

func TestFuncToolConcurrentCalls(t *testing.T) {
	t.Parallel()
	type args struct {
		City string   `json:"city"`
		Days int      `json:"days"`
		Tags []string `json:"tags"`
	}
	type result struct {
		City string   `json:"city"`
		Days []int    `json:"days"`
		Tags []string `json:"tags"`
	}
	tool, err := toolcall.NewFunc("w", "Weather", func(_ context.Context, in args) (result, error) {
		r := result{City: in.City, Tags: in.Tags}
		for d := range in.Days {
			r.Days = append(r.Days, d)
		}
		return r, nil
	})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				city := fmt.Sprintf("c%d-%d", g, i)
				out, err := tool.Call(context.Background(), json.RawMessage(fmt.Sprintf(`{"city":%q,"days":%d,"tags":["%s","x"]}`, city, i%4, city)))
				if !assert.NoError(t, err) {
					return
				}
				want, _ := json.Marshal(result{City: city, Days: []int{0, 1, 2, 3}[:i%4], Tags: []string{city, "x"}})
				if i%4 == 0 {
					want, _ = json.Marshal(result{City: city, Tags: []string{city, "x"}})
				}
				if !assert.Equal(t, string(want), out) {
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestFuncToolAllocs pins the allocations of a call of a func tool with
// arguments checked and decoded in one pass and a result encoded by
// encoding/json: the argument, the bytes of its strings (one arena), the
// tags' array, the days the tool makes, the result in an interface, the
// encoder, and the result's text: 7 with Go 1.26's encoding/json, 9 with
// Go 1.27's, which is built on encoding/json/v2.
func TestFuncToolAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("encoding/json's sync.Pool drops items at random under the race detector")
	}
	type options struct {
		Detailed bool   `json:"detailed"`
		Lang     string `json:"lang,omitempty"`
	}
	type args struct {
		City    string   `json:"city"`
		Unit    string   `json:"unit" jsonschema:"enum=C,enum=F"`
		Days    int      `json:"days" jsonschema:"minimum=1,maximum=14"`
		Tags    []string `json:"tags,omitempty"`
		Options options  `json:"options"`
	}
	type day struct {
		Day  int     `json:"day"`
		High float64 `json:"high"`
	}
	type result struct {
		City string  `json:"city"`
		Unit string  `json:"unit"`
		Days []day   `json:"days"`
		Temp float64 `json:"temp"`
	}
	tool, err := toolcall.NewFunc("weather", "Weather", func(_ context.Context, in args) (result, error) {
		r := result{City: in.City, Unit: in.Unit, Temp: 21.5, Days: make([]day, in.Days)}
		for i := range r.Days {
			r.Days[i] = day{i + 1, 20.25 + float64(i)}
		}
		return r, nil
	})
	require.NoError(t, err)
	ctx := context.Background()
	input := json.RawMessage(`{"city":"Copenhagen","unit":"C","days":3,"tags":["a","b"],"options":{"detailed":true,"lang":"en"}}`)
	want := `{"city":"Copenhagen","unit":"C","days":[{"day":1,"high":20.25},{"day":2,"high":21.25},{"day":3,"high":22.25}],"temp":21.5}`
	out, err := tool.Call(ctx, input)
	require.NoError(t, err)
	require.Equal(t, want, out)
	allocs := testing.AllocsPerRun(200, func() {
		if out, err := tool.Call(ctx, input); err != nil || len(out) != len(want) {
			panic(fmt.Sprint(out, err))
		}
	})
	limit := 9.0
	if strings.HasPrefix(runtime.Version(), "go1.26") {
		limit = 7
	}
	assert.LessOrEqual(t, allocs, limit)
}
