package toolcall_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
)

type (
	jsonTransposed struct {
		Query string `josn:"query"`
	}
	jsonLetterMissing struct {
		Limit int `json:"limit" jsn:"max"`
	}
	jsonTypoNested struct {
		Filter struct {
			Tag string `son:"tag"`
		} `json:"filter"`
	}
	otherPackagesKeys struct {
		A string `json:"a" bson:"a" yaml:"a" xml:"a" toml:"a" db:"a" form:"a" mapstructure:"a" validate:"required"`
		B string `json:"b" yson:"b" msgpack:"b" gorm:"column:b" binding:"required" query:"b" env:"B"`
	}
)

// A tag key one edit or transposition from json is a typo that would
// silently rename the parameter; defining the tool fails and names the
// field and the key.
func TestJSONKeyTypoRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		define func() error
		msg    string
		path   string
	}{
		{"josn", typedTool[jsonTransposed](), `toolcall: tool "f": parameter Query: invalid tool: tag key "josn" is not read (did you mean "json"?)`, "Query"},
		{"jsn beside json", typedTool[jsonLetterMissing](), `toolcall: tool "f": parameter limit: invalid tool: tag key "jsn" is not read (did you mean "json"?)`, "limit"},
		{"son in a nested struct", typedTool[jsonTypoNested](), `toolcall: tool "f": parameter filter.Tag: invalid tool: tag key "son" is not read (did you mean "json"?)`, "filter.Tag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.define()
			var de *toolcall.DefinitionError
			require.True(t, errors.As(err, &de), "want a *DefinitionError, got %v", err)
			require.ErrorIs(t, err, toolcall.ErrInvalidTool)
			assert.EqualError(t, err, tc.msg)
			assert.Equal(t, tc.path, de.Path)
		})
	}
}

// Other packages' tag keys, bson and yson among them though one edit from
// json, are left alone.
func TestOtherPackagesTagKeysAllowed(t *testing.T) {
	tool, err := toolcall.NewFunc("f", "f", func(context.Context, otherPackagesKeys) (string, error) { return "ran", nil })
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a","b"],"additionalProperties":false}`,
		string(tool.Definition().InputSchema))
}
