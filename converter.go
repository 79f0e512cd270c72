package toolcall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
)

// NoResultText is what the model receives from a tool that returns no value
// (only an error, or nothing) and succeeded.
const NoResultText = "Success"

// A ResultConverter turns a tool's result into the text sent to the model.
// It is not called for tools that return no value.
type ResultConverter func(result any) (string, error)

// ConvertResult is the default conversion: a string or [json.RawMessage] is
// sent as is, a []byte as a string, and any other value, nil included, as
// compact JSON.
func ConvertResult(result any) (string, error) {
	switch v := result.(type) {
	case string:
		return v, nil
	case json.RawMessage:
		if len(v) == 0 {
			return "null", nil
		}
		return string(v), nil
	case []byte:
		return string(v), nil
	case nil:
		return "null", nil
	}
	return encodeResult(result)
}

// encodeResult marshals a result as compact JSON without HTML escaping:
// the reader is a model, not a browser.
func encodeResult(v any) (string, error) {
	e := encoderPool.Get().(*resultEncoder)
	defer func() {
		if e.buf.Cap() <= 64<<10 {
			e.buf.Reset()
			encoderPool.Put(e)
		}
	}()
	if err := e.enc.Encode(v); err != nil {
		return "", fmt.Errorf("toolcall: converting result of type %T: %w", v, err)
	}
	return string(bytes.TrimSuffix(e.buf.Bytes(), []byte("\n"))), nil
}

type resultEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var encoderPool = sync.Pool{New: func() any {
	e := &resultEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}
