// Package jsonnode holds an order-preserving JSON tree, used to rewrite
// generated schemas without reordering their properties.
package jsonnode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// A Member is one name/value pair of an Object.
type Member struct {
	Key   string
	Value any
}

// An Object is a JSON object whose members keep their order. Values are
// *Object, []any, string, json.Number, bool or nil.
type Object struct{ Members []Member }

// Get returns the value of key.
func (o *Object) Get(key string) (any, bool) {
	for _, m := range o.Members {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

// Set replaces the value of key, or appends it.
func (o *Object) Set(key string, v any) {
	for i := range o.Members {
		if o.Members[i].Key == key {
			o.Members[i].Value = v
			return
		}
	}
	o.Members = append(o.Members, Member{key, v})
}

// Delete removes key.
func (o *Object) Delete(key string) {
	for i := range o.Members {
		if o.Members[i].Key == key {
			o.Members = append(o.Members[:i], o.Members[i+1:]...)
			return
		}
	}
}

// Clone returns a deep copy of v. An empty object gets nil members, as
// [Parse] gives it.
func Clone(v any) any {
	switch v := v.(type) {
	case *Object:
		c := &Object{}
		if len(v.Members) > 0 {
			c.Members = make([]Member, len(v.Members))
			for i, m := range v.Members {
				c.Members[i] = Member{m.Key, Clone(m.Value)}
			}
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = Clone(e)
		}
		return c
	}
	return v
}

// Parse reads one JSON value.
func Parse(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parse(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("jsonnode: data after the value")
	}
	return v, nil
}

func parse(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok := tok.(type) {
	case json.Delim:
		switch tok {
		case '{':
			o := &Object{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := parse(dec)
				if err != nil {
					return nil, err
				}
				o.Members = append(o.Members, Member{k.(string), v})
			}
			_, err := dec.Token()
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := parse(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
		return nil, fmt.Errorf("jsonnode: unexpected %v", tok)
	}
	return tok, nil
}

// Marshal writes v as compact JSON.
func Marshal(v any) []byte {
	return appendValue(make([]byte, 0, 256), v)
}

func appendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case *Object:
		b = append(b, '{')
		for i, m := range v.Members {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, m.Key)
			b = append(b, ':')
			b = appendValue(b, m.Value)
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	case []string:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, e)
		}
		return append(b, ']')
	case string:
		return appendString(b, v)
	case json.Number:
		return append(b, v...)
	case bool:
		return strconv.AppendBool(b, v)
	case nil:
		return append(b, "null"...)
	}
	out, err := json.Marshal(v)
	if err != nil {
		out = []byte("null")
	}
	return append(b, out...)
}

// appendString quotes s. Printable ASCII other than the quote and the
// backslash stands for itself, which is nearly every string of a schema;
// anything else goes through encoding/json, without HTML escaping.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s)
			return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// ValidNumber reports whether s is a JSON number literal, the check
// encoding/json makes of a json.Number.
func ValidNumber(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' {
		s = s[1:]
		if s == "" {
			return false
		}
	}
	switch {
	default:
		return false
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		s = s[1:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	if len(s) >= 2 && s[0] == '.' && '0' <= s[1] && s[1] <= '9' {
		s = s[2:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
			if s == "" {
				return false
			}
		}
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	return s == ""
}

// Kind names the kind of a valid JSON value from its first byte, for
// errors: "object", "array", "string", "boolean", "null" or "number".
func Kind(first byte) string {
	switch first {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}
