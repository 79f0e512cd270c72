package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
	"github.com/toolcall-go/toolcall/internal/schema"

	json2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Arguments the plan does not drive are decoded with
// github.com/go-json-experiment/json (the encoding/json/v2 prototype): it
// reports the JSON pointer of a bad value, rejects duplicate keys and
// invalid UTF-8, and matches field names exactly.
var (
	decodeOptions         = json2.JoinOptions(json2.RejectUnknownMembers(true))
	decodeDurationOptions = json2.JoinOptions(decodeOptions, json2.WithUnmarshalers(
		json2.UnmarshalFromFunc(func(dec *jsontext.Decoder, d *time.Duration) error {
			tok, err := dec.ReadToken()
			if err != nil {
				return err
			}
			if tok.Kind() != '"' {
				return fmt.Errorf("expected a duration string such as \"90s\" or \"1h30m\", got %s", tok.Kind())
			}
			v, err := time.ParseDuration(tok.String())
			if err != nil {
				return fmt.Errorf("expected a duration such as \"90s\" or \"1h30m\": %w", err)
			}
			*d = v
			return nil
		})))
)

var (
	durationType   = reflect.TypeFor[time.Duration]()
	timeType       = reflect.TypeFor[time.Time]()
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	stringType     = reflect.TypeFor[string]()
)

// Decode decodes args (normalised as by Normalize) into target, a
// pointer, with the codec. It is the path for types without a Plan; it
// does not check a schema.
func Decode(args []byte, target any, durations bool) []Violation {
	opts := decodeOptions
	if durations {
		opts = decodeDurationOptions
	}
	args = Normalize(args)
	err := json2.Unmarshal(args, target, opts)
	if err == nil {
		return nil
	}
	// A model may write 2.0 for an integer; accept integral numbers.
	if fixed, ok := integralNumbers(args); ok && isIntegerError(err) {
		if err = json2.Unmarshal(fixed, target, opts); err == nil {
			return nil
		}
	}
	return []Violation{violationOf(err)}
}

func isIntegerError(err error) bool {
	var se *json2.SemanticError
	if !errors.As(err, &se) || se.JSONKind != '0' || se.GoType == nil {
		return false
	}
	k := se.GoType.Kind()
	return k >= reflect.Int && k <= reflect.Uintptr
}

// integralNumbers rewrites numbers such as 2.0 or 1e3 as integers. It
// reports false when nothing changed. The other bytes are kept as they
// are, so a json.RawMessage gets the arguments' own text either way.
func integralNumbers(args []byte) ([]byte, bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(args))
	var out []byte
	kept := 0 // args[:kept] is in out
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			break
		}
		if tok.Kind() != '0' {
			continue
		}
		raw := tok.String()
		if !strings.ContainsAny(raw, ".eE") {
			continue
		}
		// Exactly an integer, not one only as rounded to a float64
		// (4503599627370496.25 is not, and neither is 1e-400).
		if v, ok := parseDecimal([]byte(raw)).int64(); ok && v < 1<<53 && v > -(1<<53) {
			end := int(dec.InputOffset())
			out = append(out, args[kept:end-len(raw)]...)
			out = strconv.AppendInt(out, v, 10)
			kept = end
		}
	}
	if out == nil {
		return nil, false
	}
	return append(out, args[kept:]...), true
}

// violationOf turns a decoding error into a message for the model.
func violationOf(err error) Violation {
	var se *json2.SemanticError
	var sx *jsontext.SyntacticError
	switch {
	case errors.As(err, &sx):
		return Violation{Path: pointerPath(sx.JSONPointer), Rule: "syntax",
			Message: fmt.Sprintf("arguments are not valid JSON: %v", sx.Err)}
	case errors.As(err, &se):
		path := pointerPath(se.JSONPointer)
		if errors.Is(se.Err, json2.ErrUnknownName) {
			return Violation{Path: path, Rule: "additionalProperties", Message: "unknown field; remove it"}
		}
		if se.GoType != nil && se.Err != nil && schema.DecodesItself(se.GoType) {
			return Violation{Path: path, Rule: "type", Message: se.Err.Error()} // its own words
		}
		if se.GoType != nil && se.JSONKind != 0 {
			want := jsonTypeName(se.GoType)
			got := jsonnode.Kind(byte(se.JSONKind)) // JSONKind is not 0 here
			if want == "base64 string" && se.JSONKind == '"' {
				return Violation{Path: path, Rule: "contentEncoding",
					Message: "expected base64 (standard alphabet, with padding), got a string that is not"}
			}
			if se.JSONKind == '0' && want == "integer" {
				if len(se.JSONValue) > 0 {
					got = "number " + string(se.JSONValue)
				} else {
					got = "a number that is not an integer"
				}
			}
			return Violation{Path: path, Rule: "type", Message: fmt.Sprintf("expected %s, got %s", want, got)}
		}
		msg := "invalid value"
		if se.Err != nil {
			msg = se.Err.Error()
		}
		return Violation{Path: path, Rule: "type", Message: msg}
	}
	return Violation{Rule: "syntax", Message: err.Error()}
}

// pointerPath turns a JSON pointer such as /options/days or /tags/2 into
// options.days or tags[2].
func pointerPath(p jsontext.Pointer) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		if n, err := strconv.Atoi(tok); err == nil && tok != "" && tok[0] != '+' {
			fmt.Fprintf(&b, "[%d]", n)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

func jsonTypeName(t reflect.Type) string {
	switch t {
	case durationType:
		return "duration string"
	case timeType:
		return "date-time string"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && !schema.DecodesItself(t) {
			return "base64 string" // encoding/json's form of []byte
		}
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	case reflect.Pointer:
		return jsonTypeName(t.Elem())
	}
	return t.String()
}
