package signature

import (
	"context"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type marker struct{}

type tagged struct {
	_ marker `tool:"A" description:"first"`
	_ int    `tool:"NotAMarker"`
	_ marker `tool:"B" name:"b_tool"`
}

type untagged struct {
	X marker `description:"no tool key"`
}

type misspelt struct {
	_ marker `tool:"A" descripton:"typo"`
}

// TestTags reads the marker fields in order, and tells a type that
// declares no tool from a tag that breaks the rules.
func TestTags(t *testing.T) {
	markerType := reflect.TypeFor[marker]()
	tags, terr := Tags(reflect.TypeFor[*tagged](), markerType)
	require.Nil(t, terr)
	require.Len(t, tags, 2)
	assert.Equal(t, MethodTag{Method: "A", Description: "first"}, tags[0])
	assert.Equal(t, MethodTag{Method: "B", Name: "b_tool"}, tags[1])

	for _, typ := range []reflect.Type{reflect.TypeFor[int](), reflect.TypeFor[struct{ A int }]()} {
		_, terr = Tags(typ, markerType)
		if assert.NotNil(t, terr, typ) {
			assert.True(t, terr.NoTools, typ)
		}
	}

	_, terr = Tags(reflect.TypeFor[untagged](), markerType)
	if assert.NotNil(t, terr) {
		assert.False(t, terr.NoTools)
		assert.Equal(t, "X", terr.Method, "the field, when the tag names no method")
	}
	_, terr = Tags(reflect.TypeFor[misspelt](), markerType)
	if assert.NotNil(t, terr) {
		assert.False(t, terr.NoTools)
		assert.Equal(t, "A", terr.Method)
	}
}

// TestArgs names positional parameters by the given params before the
// tag's, and tells an unsupported signature from a bad name.
func TestArgs(t *testing.T) {
	toolCtx := reflect.TypeFor[marker]()
	ft := reflect.TypeFor[func(context.Context, int, string) error]()

	shape, argType, err := Args(ft, toolCtx, "a, b", nil)
	require.NoError(t, err)
	assert.Equal(t, Positional, shape.Input)
	assert.Equal(t, "a", argType.Field(0).Tag.Get("json"))

	_, argType, err = Args(ft, toolCtx, "a, b", Entries([]string{"x: first; with a semicolon", "y?"}))
	require.NoError(t, err)
	assert.Equal(t, "x", argType.Field(0).Tag.Get("json"))
	assert.Equal(t, "first, with a semicolon", argType.Field(0).Tag.Get("jsonschema_description"))
	assert.Equal(t, "y,omitempty", argType.Field(1).Tag.Get("json"))

	_, _, err = Args(ft, toolCtx, "a, a", nil)
	assert.EqualError(t, err, `parameter name "a" given twice`)
	_, _, err = Args(ft, toolCtx, "a", Entries([]string{"", "b"}))
	assert.Error(t, err, "an entry that names no parameter")
	assert.NotErrorAs(t, err, new(*Unsupported))

	_, _, err = Args(reflect.TypeFor[func(...int)](), toolCtx, "", nil)
	assert.ErrorAs(t, err, new(*Unsupported))
}
