package toolcall_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
)

// The tools of the seed documents (Spring AI, LangChain4j), in Go.

type DateTimeTools struct {
	_ toolcall.Method `tool:"CurrentTime" name:"getCurrentDateTime" description:"Get the current date and time in the user's timezone"`
	_ toolcall.Method `tool:"SetAlarm" name:"setAlarm" description:"Set a user alarm for the given time"`

	Now    func() time.Time
	Alarms *[]time.Time
}

type AlarmArgs struct {
	Time string `json:"time" jsonschema:"description=Time in ISO-8601 format"`
}

func (t DateTimeTools) CurrentTime(ctx context.Context) string {
	return t.Now().Format(time.RFC3339)
}

func (t DateTimeTools) SetAlarm(ctx context.Context, in AlarmArgs) error {
	at, err := time.Parse(time.RFC3339, in.Time)
	if err != nil {
		return fmt.Errorf("time %q is not ISO-8601: use e.g. 2025-01-02T15:04:05Z", in.Time)
	}
	*t.Alarms = append(*t.Alarms, at)
	return nil
}

type Calculator struct {
	_ toolcall.Method `tool:"Sum" description:"Sum two numbers" params:"a: first addend; b: second addend"`
	_ toolcall.Method `tool:"SquareRoot" description:"Square root of a number" params:"x"`
}

func (Calculator) Sum(a, b float64) float64 { return a + b }

func (Calculator) SquareRoot(x float64) (float64, error) {
	if x < 0 {
		return 0, errors.New("x must not be negative")
	}
	return math.Sqrt(x), nil
}

type Unit string

type WeatherRequest struct {
	Location string `json:"location" jsonschema:"description=City name"`
	Unit     Unit   `json:"unit" jsonschema:"enum=C,enum=F"`
}

type WeatherResponse struct {
	Temp float64 `json:"temp"`
	Unit Unit    `json:"unit"`
}

func currentWeather(_ context.Context, in WeatherRequest) (WeatherResponse, error) {
	return WeatherResponse{Temp: 30, Unit: in.Unit}, nil
}

type Customer struct {
	ID     int64  `json:"id"`
	Name   string `json:"name"`
	Email  string `json:"email,omitempty"`
	Tenant string `json:"tenant"`
}

type CustomerTools struct {
	_ toolcall.Method `tool:"UpdateCustomerInfo" description:"Update customer information" params:"id: customer id; name: new name; email?: new email address"`
	_ toolcall.Method `tool:"CustomerInfo" description:"Retrieve customer information"`

	Updated *[]Customer
}

type CustomerArgs struct {
	ID int64 `json:"id" jsonschema:"description=Customer id"`
}

func (c CustomerTools) UpdateCustomerInfo(ctx context.Context, id int64, name string, email string) error {
	*c.Updated = append(*c.Updated, Customer{ID: id, Name: name, Email: email})
	return nil
}

func (c CustomerTools) CustomerInfo(ctx context.Context, in CustomerArgs, tc toolcall.ToolContext) (Customer, error) {
	tenant, _ := tc.Value("tenantId").(string)
	return Customer{ID: in.ID, Name: "Ada", Tenant: tenant}, nil
}

func toolByName(t *testing.T, tools []toolcall.Tool, name string) toolcall.Tool {
	t.Helper()
	for _, tool := range tools {
		if tool.Definition().Name == name {
			return tool
		}
	}
	t.Fatalf("no tool %q", name)
	return nil
}

func TestSeedDateTimeTools(t *testing.T) {
	t.Parallel()
	var alarms []time.Time
	now := time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC)
	tools, err := toolcall.ToolsFrom(DateTimeTools{Now: func() time.Time { return now }, Alarms: &alarms})
	require.NoError(t, err)
	require.Len(t, tools, 2)

	cur := toolByName(t, tools, "getCurrentDateTime")
	assert.Equal(t, "Get the current date and time in the user's timezone", cur.Definition().Description)
	assert.JSONEq(t, `{"type":"object","properties":{},"required":[],"additionalProperties":false}`, string(cur.Definition().InputSchema))
	got, err := cur.Call(context.Background(), json.RawMessage(`{}`))
	require.NoError(t, err)
	assert.Equal(t, "2025-05-01T10:00:00Z", got)

	set := toolByName(t, tools, "setAlarm")
	assert.JSONEq(t, `{"type":"object","properties":{"time":{"type":"string","description":"Time in ISO-8601 format"}},"required":["time"],"additionalProperties":false}`,
		string(set.Definition().InputSchema))
	got, err = set.Call(context.Background(), json.RawMessage(`{"time":"2025-05-01T10:10:00Z"}`))
	require.NoError(t, err)
	assert.Equal(t, "Success", got)
	assert.Equal(t, []time.Time{now.Add(10 * time.Minute)}, alarms)
}

func TestSeedCalculator(t *testing.T) {
	t.Parallel()
	tools, err := toolcall.ToolsFrom(Calculator{})
	require.NoError(t, err)
	sum := toolByName(t, tools, "Sum")
	assert.JSONEq(t, `{"type":"object","properties":{"a":{"type":"number","description":"first addend"},"b":{"type":"number","description":"second addend"}},"required":["a","b"],"additionalProperties":false}`,
		string(sum.Definition().InputSchema))
	got, err := sum.Call(context.Background(), json.RawMessage(`{"a":1.5,"b":2}`))
	require.NoError(t, err)
	assert.Equal(t, "3.5", got)

	sqrt := toolByName(t, tools, "SquareRoot")
	got, err = sqrt.Call(context.Background(), json.RawMessage(`{"x":16}`))
	require.NoError(t, err)
	assert.Equal(t, "4", got)
	_, err = sqrt.Call(context.Background(), json.RawMessage(`{"x":-1}`))
	assert.EqualError(t, err, "x must not be negative")
}

func TestSeedWeatherFunction(t *testing.T) {
	t.Parallel()
	weather, err := toolcall.NewFunc("currentWeather", "Get the weather in location", currentWeather)
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{
		"location":{"type":"string","description":"City name"},
		"unit":{"type":"string","enum":["C","F"]}},
		"required":["location","unit"],"additionalProperties":false}`, string(weather.Definition().InputSchema))
	got, err := weather.Call(context.Background(), json.RawMessage(`{"location":"Paris","unit":"C"}`))
	require.NoError(t, err)
	assert.Equal(t, `{"temp":30,"unit":"C"}`, got)
}

func TestSeedCustomerTools(t *testing.T) {
	t.Parallel()
	var updated []Customer
	tools, err := toolcall.ToolsFrom(&CustomerTools{Updated: &updated})
	require.NoError(t, err)

	upd := toolByName(t, tools, "UpdateCustomerInfo")
	assert.JSONEq(t, `{"type":"object","properties":{
		"id":{"type":"integer","description":"customer id"},
		"name":{"type":"string","description":"new name"},
		"email":{"type":"string","description":"new email address"}},
		"required":["id","name"],"additionalProperties":false}`, string(upd.Definition().InputSchema))
	_, err = upd.Call(context.Background(), json.RawMessage(`{"id":7,"name":"Ada"}`))
	require.NoError(t, err)
	_, err = upd.Call(context.Background(), json.RawMessage(`{"id":8,"name":"Bob","email":"bob@example.com"}`))
	require.NoError(t, err)
	assert.Equal(t, []Customer{{ID: 7, Name: "Ada"}, {ID: 8, Name: "Bob", Email: "bob@example.com"}}, updated)

	info := toolByName(t, tools, "CustomerInfo")
	assert.NotContains(t, string(info.Definition().InputSchema), "tenant", "the ToolContext is not a parameter")
	assert.JSONEq(t, `{"type":"object","properties":{"id":{"type":"integer","description":"Customer id"}},"required":["id"],"additionalProperties":false}`,
		string(info.Definition().InputSchema))
	ctx := toolcall.ContextWithToolContext(context.Background(), toolcall.NewToolContext(map[string]any{"tenantId": "acme"}))
	got, err := info.Call(ctx, json.RawMessage(`{"id":42}`))
	require.NoError(t, err)
	assert.Equal(t, `{"id":42,"name":"Ada","tenant":"acme"}`, got)

	// No ToolContext given: the tool gets an empty one, never a crash.
	got, err = info.Call(context.Background(), json.RawMessage(`{"id":42}`))
	require.NoError(t, err)
	assert.Equal(t, `{"id":42,"name":"Ada","tenant":""}`, got)
}
